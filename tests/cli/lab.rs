//! `klog lab`: the server started as a user starts it (`--dir D --port 0`), its URL read from
//! stdout, and raw HTTP requests over std's TcpStream: the refusals (token, Host, Origin,
//! method, size, JSON), nothing written outside D, and (in Chromium) KIP-101 scenario 1 played
//! by clicking, whose copied script, run through the CLI, leaves the same dirs.

use crate::common::*;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `klog lab`, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
    token: String,
    url: String,
}

impl Server {
    fn start(dir: &Path, tmp: &Path) -> Server {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("klog"))
            .args(["lab", "--dir", s(dir), "--port", "0"])
            .env("TMPDIR", tmp)
            .env("NO_COLOR", "1")
            .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("klog lab starts");
        let mut first = String::new();
        BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut first).unwrap();
        let url = first.trim().strip_prefix("klog lab: ").unwrap_or_else(|| panic!("no URL: {first:?}")).to_string();
        let rest = url.strip_prefix("http://127.0.0.1:").expect("bound to 127.0.0.1");
        let (port, token) = rest.split_once("/?token=").expect("the URL carries the token");
        Server { port: port.parse().unwrap(), token: token.to_string(), url: url.clone(), child }
    }

    /// One raw request; (status, body).
    fn raw(&self, request: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply);
        let text = String::from_utf8_lossy(&reply).into_owned();
        let status =
            text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or_else(|| panic!("no status: {text:?}"));
        let body = text.split_once("\r\n\r\n").map_or(String::new(), |(_, b)| b.to_string());
        (status, body)
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn get(&self, path: &str, extra: &str) -> (u16, String) {
        self.raw(&format!("GET {path} HTTP/1.1\r\nHost: {}\r\n{extra}Connection: close\r\n\r\n", self.host()))
    }

    fn post(&self, path: &str, content_type: &str, body: &str, extra: &str) -> (u16, String) {
        self.raw(&format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nX-Klog-Token: {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
            self.host(),
            self.token,
            body.len()
        ))
    }

    fn act(&self, body: &str) -> serde_json::Value {
        let (status, reply) = self.post("/api/act", "application/json", body, "");
        assert_eq!(status, 200, "{body}: {reply}");
        serde_json::from_str(&reply).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn the_lab_refuses_requests_without_the_token_from_other_hosts_or_origins_and_bad_bodies() {
    let outside = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = outside.path().join("lab");
    let server = Server::start(&dir, tmp.path());
    let token = server.token.clone();
    let with_token = format!("X-Klog-Token: {token}\r\n");

    // The page with its token; the API with the token in a header.
    let (status, page) = server.get(&format!("/?token={token}"), "");
    assert_eq!(status, 200);
    assert!(page.contains("<title>klog lab</title>") && !page.contains("http://") && !page.contains("https://"));
    assert_eq!(server.get("/api/state", &with_token).0, 200);

    // A client that sends half a request, or half a body, and stalls holds nobody else up.
    let mut stalled = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stalled.write_all(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1").unwrap();
    let mut stalled_body = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let half = format!(
        "POST /api/act HTTP/1.1\r\nHost: {}\r\n{with_token}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{",
        server.host()
    );
    stalled_body.write_all(half.as_bytes()).unwrap();
    assert_eq!(server.get("/api/state", &with_token).0, 200);

    let before = tree(&dir);
    // No token, a wrong one, the token only in the URL for the API.
    assert_eq!(server.get("/", "").0, 403);
    assert_eq!(server.get("/?token=00000000000000000000000000000000", "").0, 403);
    assert_eq!(server.get("/api/state", "").0, 403);
    assert_eq!(server.get(&format!("/api/state?token={token}"), "").0, 403);
    assert_eq!(server.get("/api/state", "X-Klog-Token: 00000000000000000000000000000000\r\n").0, 403);
    // DNS rebinding: another Host; a cross-site page: another Origin.
    let rebinding = format!(
        "GET /api/state HTTP/1.1\r\nHost: evil.example:{}\r\n{with_token}Connection: close\r\n\r\n",
        server.port
    );
    assert_eq!(server.raw(&rebinding).0, 403);
    let no_host = format!("GET /api/state HTTP/1.0\r\n{with_token}\r\n");
    assert_eq!(server.raw(&no_host).0, 403);
    let act = r#"{"kind":"elect","replica":"b","isr":["a"]}"#;
    assert_eq!(server.post("/api/act", "application/json", act, "Origin: http://evil.example\r\n").0, 403);
    assert_eq!(
        server
            .post("/api/act", "application/json", act, &format!("Origin: http://localhost:{}\r\n", server.port + 1))
            .0,
        403
    );
    // Changes only by POST with JSON, bounded.
    assert_eq!(server.get("/api/act", &with_token).0, 405);
    assert_eq!(server.post("/api/act", "text/plain", act, "").0, 415);
    assert_eq!(server.post("/api/act", "application/x-www-form-urlencoded", act, "").0, 415);
    let big = format!("{{\"kind\":\"append\",\"replica\":\"{}\"}}", "b".repeat(17 * 1024));
    assert_eq!(server.post("/api/act", "application/json", &big, "").0, 413);
    assert_eq!(server.post("/api/act", "application/json", "{\"kind\":", "").0, 400);
    assert_eq!(
        server.post("/api/act", "application/json", r#"{"kind":"crash","replica":"b","path":"/etc"}"#, "").0,
        400
    );
    assert_eq!(server.post("/api/act", "application/json", r#"{"kind":"crash","replica":"../../x"}"#, "").0, 400);
    assert_eq!(server.post("/api/act", "application/json", r#"{"kind":"crash","replica":"c"}"#, "").0, 400);
    assert_eq!(server.post("/api/act", "application/json", r#"{"kind":"rm","replica":"a"}"#, "").0, 400);
    assert_eq!(server.post("/api/goto", "application/json", r#"{"branch":7,"frame":0}"#, "").0, 400);
    assert_eq!(server.post("/api/reset", "application/json", r#"{"replicas":9}"#, "").0, 400);
    assert_eq!(server.get("/etc/passwd", &with_token).0, 404);
    assert_eq!(tree(&dir), before, "a refused request changes nothing");

    // A command klog refuses (append to a follower) is reported and changes nothing.
    let (status, reply) = server.post("/api/act", "application/json", r#"{"kind":"append","replica":"a"}"#, "");
    assert_eq!(status, 409, "{reply}");
    assert_eq!(tree(&dir), before, "a failed command changes nothing");

    // Accepted actions write only under D.
    let state = server.act(act);
    assert_eq!(state["frame"]["command"], "klog elect \"$LAB/b\" --epoch 0 --isr \"$LAB/a\"");
    server.act(r#"{"kind":"append","replica":"b"}"#);
    let state = server.act(r#"{"kind":"fetch","leader":"b","follower":"a"}"#);
    assert!(state["frame"]["code"].as_array().unwrap()[0].as_str().unwrap().contains("fetch"), "{state}");
    // From a state the model holds, the explorer runs; a step outside the model (crashing a
    // replica that is down: klog takes it, the explorer's controller never does) says so.
    let (status, reply) = server.post("/api/explore", "application/json", r#"{"mode":"hw"}"#, "");
    assert_eq!(status, 200, "{reply}");
    server.act(r#"{"kind":"crash","replica":"a","power_loss":false}"#);
    let state = server.act(r#"{"kind":"crash","replica":"a","power_loss":false}"#);
    assert_eq!(state["frame"]["model"]["fits"], false, "{state}");
    let why = state["frame"]["model"]["why"].as_str().unwrap();
    assert!(why.starts_with("step 5 (klog crash \"$LAB/a\") does not fit"), "{why}");
    let mut explorer = serde_json::Value::Null;
    for _ in 0..200 {
        let (_, reply) = server.post("/api/explore", "application/json", r#"{"mode":"kip279"}"#, "");
        explorer = serde_json::from_str::<serde_json::Value>(&reply).unwrap()["explorer"].clone();
        if explorer["result"]["current"] == true {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(explorer["result"]["outcome"]["fits"], false, "{explorer}");
    assert_eq!(explorer["result"]["outcome"]["why"], why);
    drop((stalled, stalled_body));
    drop(server);
    assert_eq!(listing(outside.path()), vec!["lab"], "nothing beside D");
    assert_eq!(listing(tmp.path()), Vec::<String>::new(), "nothing in the temp dir");
    assert_eq!(listing(&dir), vec!["1"], "one branch dir");
    assert_eq!(listing(&dir.join("1")), vec!["a", "b"]);
}

#[test]
fn the_lab_takes_only_an_empty_or_absent_dir_outside_kafka_log_dirs() {
    let lab = Lab::new();
    let full = lab.path("full");
    std::fs::create_dir_all(&full).unwrap();
    std::fs::write(full.join("x"), b"x").unwrap();
    let (_, err) = code(&["lab", "--dir", s(&full), "--port", "0"], 2);
    assert!(err.contains("not empty") && err.contains(s(&full)), "{err}");
    let replica = lab.create("a", 1, &[]);
    let inside = replica.join("lab");
    let (_, err) = code(&["lab", "--dir", s(&inside), "--port", "0"], 2);
    assert!(err.contains("inside a Kafka log dir"), "{err}");
    assert!(!inside.exists());
}

/// `create`'s time in `meta.properties` (its Properties.store date line), the same in the lab
/// and in the script's run.
const SOURCE_DATE_EPOCH: &str = "1796083200";

/// Every file under `dir` by its path below `dir`, byte for byte.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    tree(dir).into_iter().filter_map(|(p, bytes)| Some((p.strip_prefix(dir).unwrap().to_path_buf(), bytes?))).collect()
}

/// Run a copied lab script with DIR = `dir` (its lab's own branch dir, moved aside first, so the
/// directory ids klog derives from the path are the same) and compare every file.
fn replay_matches(script: &str, dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let lab_copy = dir.with_extension("lab");
    std::fs::rename(dir, &lab_copy).unwrap();
    let file = dir.with_extension("sh");
    std::fs::write(&file, script).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("klog");
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("bash")
        .arg(&file)
        .arg(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (lab_files, cli_files) = (files(&lab_copy), files(dir));
    assert_eq!(lab_files.keys().collect::<Vec<_>>(), cli_files.keys().collect::<Vec<_>>());
    for (p, bytes) in &lab_files {
        assert!(cli_files[p] == *bytes, "{} differs between the lab and its script", p.display());
    }
    assert!(lab_files.len() >= 20, "{} files", lab_files.len());
    let meta = lab_files.iter().find(|(p, _)| p.ends_with("a/meta.properties")).expect("a's meta.properties").1;
    assert!(String::from_utf8_lossy(meta).contains("#Tue Dec 01 00:00:00 UTC 2026\n"), "SOURCE_DATE_EPOCH unused");
    cli_files
}

/// The record at `offset` of replica `name` under `dir`, read by `klog dump`.
fn value_at(dir: &Path, name: &str, offset: i64) -> Option<String> {
    records(&dir.join(name)).into_iter().find(|(o, _, _)| *o == offset).map(|(_, _, v)| v)
}

#[test]
fn kip101_scenario_1_played_by_clicking_loses_m2_under_hw_and_not_under_kip279_and_its_scripts_replay_it() {
    let outside = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = outside.path().join("lab");
    let server = Server::start(&dir, tmp.path());
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-shots/lab");
    let Some(seen) = crate::browser::run("lab.mjs", &[&server.url, s(&shots)]) else { return };
    drop(server);
    assert_eq!(seen["errors"], serde_json::json!([]), "{seen}");
    assert_eq!(seen["narrow"], serde_json::json!([0, 0, 0, 0]), "at 400 px no frame is wider than the page");
    for f in seen["frames"].as_array().unwrap() {
        assert_eq!(f["pictures"], 1, "every frame has the replicas' picture: {f}");
        assert_eq!(f["page_wider_than_viewport"], false, "{f}");
        let command = f["command"].as_str().unwrap();
        if ["klog elect", "klog append", "klog fetch"].iter().any(|c| command.starts_with(c))
            || command.contains("--leader") && command.starts_with("klog recover")
        {
            assert!(f["code_panels"].as_u64().unwrap() >= 1 && f["ran_lines"].as_u64().unwrap() >= 1, "{f}");
        }
        if command.starts_with("klog recover") && command.contains("--leader") {
            assert_eq!(f["recovery_pictures"], 1, "{f}");
        }
    }
    // Under hw: a restarts, truncates to its HW 1, and is elected without the acked m2.
    assert_eq!(seen["crash"]["lost"], "", "{seen}");
    assert_eq!(seen["electHw"]["lost"], "m2@1", "{seen}");
    assert_eq!(seen["electHw"]["leader"], "a");
    assert!(
        seen["electHw"]["model"].as_str().unwrap().contains("acked m2 (offset 1) is missing from a's log"),
        "{seen}"
    );
    assert_eq!(seen["lastHw"]["lost"], "m2@1");
    // The explorer from the crash frame finds the way: recover under hw, then elect a.
    assert_eq!(seen["explorer"]["found"], "true", "{seen}");
    let steps: Vec<&str> = seen["explorer"]["steps"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(steps.first().is_some_and(|s| s.contains("klog recover $LAB/a --leader $LAB/b --mode hw")), "{steps:?}");
    assert!(steps.last().is_some_and(|s| s.starts_with("klog elect $LAB/a")), "{steps:?}");
    // Forked at the crash, under kip279: a keeps m2; nothing lost.
    assert_eq!(seen["elect279"]["lost"], "", "{seen}");
    assert_eq!(seen["last279"]["lost"], "", "{seen}");
    assert_eq!(seen["last279"]["acked"], "m1@0,m2@1,m3@2", "{seen}");
    assert_eq!(seen["branches"], serde_json::json!([13, 13]), "{seen}");
    assert!(seen["last279"]["title"].as_str().unwrap().starts_with("Branch 2, frame 12"), "{seen}");

    // Each copied script, run through the CLI, leaves byte-identical dirs and the same verdict.
    // Read back from the clipboard the copy button wrote.
    assert_eq!(seen["hw_script"]["from"], "clipboard", "{seen}");
    assert_eq!(seen["kip279_script"]["from"], "clipboard", "{seen}");
    let hw_script = seen["hw_script"]["text"].as_str().unwrap();
    let kip279_script = seen["kip279_script"]["text"].as_str().unwrap();
    assert!(hw_script.contains("--mode hw\n") && !hw_script.contains("kip279"), "{hw_script}");
    assert!(kip279_script.contains("--mode kip279\n") && !kip279_script.contains("--mode hw"), "{kip279_script}");
    assert!(hw_script.ends_with("# verdict: acknowledged m2 (offset 1) lost: a leads at epoch 1 without it\n"));
    assert!(kip279_script.ends_with("# verdict: no acknowledged record lost\n"), "{kip279_script}");
    let (hw_dir, kip279_dir) = (dir.join("1"), dir.join("2"));
    assert_eq!(seen["kip279_dir"], s(&kip279_dir));
    replay_matches(hw_script, &hw_dir);
    replay_matches(kip279_script, &kip279_dir);
    // The verdict, read back from the script's dirs with klog dump: under hw the leader a holds
    // m3 where the acked m2 was; under kip279 it holds m2 there.
    assert_eq!(value_at(&hw_dir, "a", 1).as_deref(), Some("m3"));
    assert_eq!(value_at(&hw_dir, "b", 1).as_deref(), Some("m2"));
    assert_eq!(value_at(&kip279_dir, "a", 1).as_deref(), Some("m2"));
    assert_eq!(value_at(&kip279_dir, "a", 2).as_deref(), Some("m3"));
    assert_eq!(listing(tmp.path()), Vec::<String>::new(), "nothing in the temp dir");
}

#[test]
fn a_symlink_into_a_kafka_partition_dir_is_refused_as_the_partition_dir_is() {
    let lab = Lab::new();
    let replica = lab.create("a", 1, &[]);
    let partition = replica.join("demo-0");
    // an empty dir inside the partition dir, reached through a symlink outside it; and a
    // symlink to the partition dir itself, with the lab dir to be made under it
    let empty = partition.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let link = lab.path("link");
    std::os::unix::fs::symlink(&empty, &link).unwrap();
    let to_partition = lab.path("to-partition");
    std::os::unix::fs::symlink(&partition, &to_partition).unwrap();
    let dangling = lab.path("dangling");
    std::os::unix::fs::symlink(lab.path("nowhere"), &dangling).unwrap();
    let before = tree(&replica);
    for dir in [link.clone(), to_partition.join("lab"), link.join("deeper/lab")] {
        let (out, err) = code(&["lab", "--dir", s(&dir), "--port", "0"], 2);
        assert!(out.is_empty(), "{out}");
        assert!(err.contains("inside a Kafka log dir") && err.contains(s(&partition)), "{err}");
        assert!(err.contains(&format!("where {} leads", s(&dir))), "{err}");
    }
    let (_, err) = code(&["lab", "--dir", s(&dangling), "--port", "0"], 2);
    assert!(err.contains("dangling symlink"), "{err}");
    assert!(!lab.path("nowhere").exists());
    assert_eq!(tree(&replica), before, "nothing written inside the partition dir");
}

#[test]
fn a_refused_fork_leaves_no_branch_and_never_uses_up_the_branch_cap() {
    let outside = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = outside.path().join("lab");
    let server = Server::start(&dir, tmp.path());
    server.act(r#"{"kind":"elect","replica":"b","isr":["a"]}"#);
    server.act(r#"{"kind":"append","replica":"b"}"#);
    // back to frame 1 (b leads, nothing appended): a fork whose action klog refuses
    let goto = |frame: usize| {
        let body = format!(r#"{{"branch":0,"frame":{frame}}}"#);
        let (status, reply) = server.post("/api/goto", "application/json", &body, "");
        assert_eq!(status, 200, "{reply}");
    };
    let state = |server: &Server| {
        let (status, reply) = server.get("/api/state", &format!("X-Klog-Token: {}\r\n", server.token));
        assert_eq!(status, 200, "{reply}");
        serde_json::from_str::<serde_json::Value>(&reply).unwrap()
    };
    goto(1);
    let before = tree(&dir);
    let branches = state(&server)["branches"].clone();
    for _ in 0..70 {
        let (status, reply) = server.post("/api/act", "application/json", r#"{"kind":"append","replica":"a"}"#, "");
        assert_eq!(status, 409, "{reply}");
    }
    assert_eq!(tree(&dir), before, "a refused fork leaves no branch dir");
    assert_eq!(listing(&dir), vec!["1"]);
    assert_eq!(state(&server)["branches"], branches, "nor a branch entry");
    // a fork klog takes is still made, as the second branch
    let forked = server.act(r#"{"kind":"crash","replica":"a","power_loss":false}"#);
    assert_eq!(listing(&dir), vec!["1", "2"], "{forked}");
}

#[test]
fn the_watch_preset_the_quiz_the_three_eras_side_by_side_and_the_explorer_replay_play_by_clicks_and_their_scripts_replay_them(
) {
    let outside = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = outside.path().join("lab");
    let server = Server::start(&dir, tmp.path());
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-shots/lab-watch");
    let Some(seen) = crate::browser::run("lab-watch.mjs", &[&server.url, s(&shots)]) else { return };
    drop(server);
    eprintln!("screenshots: {}", shots.display());
    assert_eq!(seen["errors"], serde_json::json!([]), "{seen}");

    // The preset stops after the second fetch round: a's HW 0 (LEO 2) while b's is 2, and says so.
    let preset = &seen["presetState"];
    let script = preset["script"].as_str().unwrap();
    let commands: Vec<&str> = script.lines().filter(|l| l.starts_with("klog ")).collect();
    assert_eq!(
        commands,
        [
            "klog create \"$LAB/a\" --replica-id 1",
            "klog create \"$LAB/b\" --replica-id 2",
            "klog elect \"$LAB/b\" --epoch 1 --isr \"$LAB/a\"",
            "klog append \"$LAB/b\" m1 m2 --timestamp 1000",
            "klog fetch --leader \"$LAB/b\" \"$LAB/a\" --kafka 2.7.2",
            "klog fetch --leader \"$LAB/b\" \"$LAB/a\" --kafka 2.7.2",
        ],
        "{script}"
    );
    let marks: Vec<(i64, i64)> = preset["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["log_end_offset"].as_i64().unwrap(), r["high_watermark"].as_i64().unwrap()))
        .collect();
    assert_eq!(marks, [(2, 0), (2, 2)], "a: LEO 2 HW 0; b: LEO 2 HW 2");
    assert_eq!(preset["next_epoch"], 2);
    let hint = seen["preset"]["hint"].as_str().unwrap();
    assert!(hint.contains("a's HW is 0 while b's is 2: m1 and m2 are acknowledged"), "{hint}");
    assert_eq!(seen["preset"]["acked"], "m1@0,m2@1");
    assert_eq!(seen["preset"]["pictures"], 1);

    // The quiz asks with the frame before on the page, and shows the result only once answered.
    let quiz = seen["quiz"].as_array().unwrap();
    assert_eq!(quiz.len(), 2);
    for q in quiz {
        let (before, asked, after) = (&q["before"], &q["asked"], &q["after"]);
        assert_eq!(asked["quiz_shown"], true, "{q}");
        for key in ["title", "command", "output", "picture", "lost", "acked"] {
            assert_eq!(asked[key], before[key], "{key} changed before the answer: {q}");
        }
        assert_ne!(after["title"], before["title"], "{q}");
        assert_eq!(after["quiz_shown"], false);
        // The question's visible text holds no number but its offsets to choose from.
        let question = asked["question"].as_str().unwrap();
        assert!(!question.chars().any(|c| c.is_ascii_digit()), "{question}");
    }
    assert!(quiz[0]["asked"]["question"].as_str().unwrap().contains("Which HW will its checkpoint hold"));
    assert_eq!(quiz[0]["result"], serde_json::json!({ "answer": "0", "chosen": "0", "right": true }));
    assert!(quiz[1]["asked"]["question"].as_str().unwrap().contains("Where will its log end"));
    assert_eq!(quiz[1]["result"], serde_json::json!({ "answer": "0", "chosen": "2", "right": false }));
    assert!(quiz[1]["after"]["result"].as_str().unwrap().starts_with("Not quite (you said 2): a's log ends at 0"));

    // The Watch's ending under hw: a elected without m1 m2.
    assert_eq!(seen["elect"]["lost"], "m1@0,m2@1", "{seen}");
    assert_eq!(seen["restart"]["lost"], "m1@0,m2@1");

    // Side by side: hw loses m1 and m2; kip101 and kip279 keep them; one row at 1280 px.
    let compare = seen["compare"].as_array().unwrap();
    let eras: Vec<(&str, &str)> =
        compare.iter().map(|c| (c["era"].as_str().unwrap(), c["lost"].as_str().unwrap())).collect();
    assert_eq!(eras, [("hw", "m1@0,m2@1"), ("kip101", ""), ("kip279", "")]);
    assert!(compare.iter().all(|c| c["pictures"] == 1 && c["top"] == compare[0]["top"]), "{compare:?}");
    for (era, c) in seen["eraScripts"].as_object().unwrap() {
        let script = c["script"].as_str().unwrap();
        assert_eq!(script.matches(&format!("--mode {era}\n")).count(), 2, "{script}");
        assert!(script.ends_with(if era == "hw" {
            "# verdict: acknowledged m1 (offset 0), m2 (offset 1) lost: a leads at epoch 2 without it\n"
        } else {
            "# verdict: no acknowledged record lost\n"
        }));
        let branch_dir = dir.join((c["branch"].as_u64().unwrap() + 1).to_string());
        let replayed = replay_matches(script, &branch_dir);
        let a_values: Vec<String> = records(&branch_dir.join("a")).into_iter().map(|(_, _, v)| v).collect();
        assert_eq!(a_values, if era == "hw" { vec!["m3"] } else { vec!["m1", "m2", "m3"] }, "{era}");
        assert!(!replayed.is_empty());
    }

    // The explorer from the preset's frame, replayed by one click into a new branch.
    assert_eq!(seen["explorer"]["found"], "true", "{seen}");
    let steps = seen["explorer"]["steps"].as_array().unwrap();
    assert!(steps.last().unwrap().as_str().unwrap().starts_with("klog elect $LAB/a"), "{steps:?}");
    assert_eq!(seen["replayed"]["lost"], "m1@0,m2@1", "{seen}");
    let replay_script = seen["replay"]["script"].as_str().unwrap();
    for step in steps {
        let step = step.as_str().unwrap();
        assert!(replay_script.replace('"', "").contains(&format!("{step}\n")), "{step} not in {replay_script}");
    }
    assert!(replay_script.ends_with("lost: a leads at epoch 2 without it\n"), "{replay_script}");
    replay_matches(replay_script, Path::new(seen["replay"]["branch_dir"].as_str().unwrap()));

    // 400 px: the picture above the buttons, no text under 12 px, nothing wider than the page.
    for n in seen["narrow"].as_array().unwrap() {
        assert_eq!(n["small"], serde_json::json!([]), "{n}");
        assert_eq!(n["overflow"], 0, "{n}");
        assert!(n["picture_top"].as_i64() < n["actions_top"].as_i64(), "{n}");
        assert!(n["picture_top"].as_i64() < n["preset_top"].as_i64(), "{n}");
    }
    assert_eq!(listing(tmp.path()), Vec::<String>::new(), "nothing in the temp dir");
}

#[test]
fn the_era_fork_and_the_replay_are_refused_when_they_have_nothing_to_do_and_write_nothing() {
    let outside = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = outside.path().join("lab");
    let server = Server::start(&dir, tmp.path());
    let (status, reply) = server.post("/api/preset", "application/json", "{}", "");
    assert_eq!(status, 200, "{reply}");
    let state: serde_json::Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(state["view"], serde_json::json!({ "branch": 1, "frame": 4, "last": 4 }));
    assert!(state["frame"]["hint"].as_str().unwrap().starts_with("Watch for this: a's HW is 0 while b's is 2"));
    assert_eq!(state["next_epoch"], 2);
    let before = tree(&dir);
    // No recover yet: every era would run the same commands.
    let (status, reply) = server.post("/api/eras", "application/json", "{}", "");
    assert_eq!(status, 409, "{reply}");
    assert!(reply.contains("nothing up to this frame depends on the era"), "{reply}");
    // No explorer answer to replay; a body with something in it is not the empty one.
    assert_eq!(server.post("/api/replay", "application/json", "{}", "").0, 409);
    assert_eq!(server.post("/api/preset", "application/json", r#"{"steps":[]}"#, "").0, 400);
    assert_eq!(server.get("/api/eras", &format!("X-Klog-Token: {}\r\n", server.token)).0, 405);
    assert_eq!(tree(&dir), before, "a refusal writes nothing");
    // After a recover, three branches, one per era, the view kept.
    server.act(r#"{"kind":"crash","replica":"a","power_loss":false}"#);
    server.act(r#"{"kind":"recover","follower":"a","leader":"b","mode":"kip101"}"#);
    let (status, reply) = server.post("/api/eras", "application/json", "{}", "");
    assert_eq!(status, 200, "{reply}");
    let state: serde_json::Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(state["view"]["frame"], 6);
    let columns = state["compare"]["columns"].as_array().unwrap();
    let leo_of_a: Vec<(&str, i64)> = columns
        .iter()
        .map(|c| (c["era"].as_str().unwrap(), c["roles"][0]["log_end_offset"].as_i64().unwrap()))
        .collect();
    assert_eq!(leo_of_a, [("hw", 0), ("kip101", 2), ("kip279", 2)], "hw cuts a to its own HW 0");
    assert_eq!(listing(&dir), vec!["1", "2", "3", "4", "5"]);
}
