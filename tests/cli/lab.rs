//! `klog lab`: the server started as a user starts it (tests/support/lab_server.rs): the
//! refusals (token, Host, Origin, method, size, JSON), nothing written outside D, the forks and
//! replays it refuses. Played by clicking in Chromium: the browser tier (tests/browser/lab.rs).

use crate::common::*;
use crate::lab_server::{listing, Server};
use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

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

#[test]
fn the_stuck_lso_preset_over_http_and_its_txn_steps_refused_where_they_have_nothing_to_end() {
    let outside = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = outside.path().join("lab");
    let server = Server::start(&dir, tmp.path());
    // A plain branch has no transactions to end; an unknown kind or scene is a bad request.
    let (status, reply) = server.post("/api/txn", "application/json", r#"{"kind":"admin-abort"}"#, "");
    assert_eq!(status, 409, "{reply}");
    assert!(reply.contains("start the stuck-lso preset"), "{reply}");
    assert_eq!(server.post("/api/txn", "application/json", r#"{"kind":"rm"}"#, "").0, 400);
    assert_eq!(server.post("/api/preset", "application/json", r#"{"scene":"kip101-1"}"#, "").0, 400);
    assert_eq!(server.get("/api/txn", &format!("X-Klog-Token: {}\r\n", server.token)).0, 405);
    let (status, reply) = server.post("/api/preset", "application/json", r#"{"scene":"stuck-lso"}"#, "");
    assert_eq!(status, 200, "{reply}");
    let state: serde_json::Value = serde_json::from_str(&reply).unwrap();
    let txn = &state["frame"]["txn"];
    assert_eq!((&txn["last_stable_offset"], &txn["high_watermark"]), (&serde_json::json!(2), &serde_json::json!(7)));
    assert_eq!(txn["open"]["producer_id"], 1000);
    assert_eq!(state["frame"]["model"]["fits"], false);
    // The admin abort ends the one open transaction; a second has nothing to end and writes nothing.
    let (status, reply) = server.post("/api/txn", "application/json", r#"{"kind":"admin-abort"}"#, "");
    assert_eq!(status, 200, "{reply}");
    let before = tree(&dir);
    let (status, reply) = server.post("/api/txn", "application/json", r#"{"kind":"commit"}"#, "");
    assert_eq!(status, 409, "{reply}");
    assert!(reply.contains("no transaction is open on a at this frame"), "{reply}");
    assert_eq!(tree(&dir), before, "a refusal writes nothing");
}

/// #46: more clients than the lab has slots (workers and queue together) declare a body and
/// never send it; the lab still answers a well-formed request within a few deadlines, and the
/// stalled ones get 408 at their deadline. Before the fix eight such clients held every slot of
/// the accept loop for good and every later request got 503.
#[test]
fn stalled_clients_beyond_every_slot_never_block_the_lab() {
    use replica_lab::lab::http::{QUEUE_MAX, REQUEST_SECONDS, WORKERS};
    let outside = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(&outside.path().join("lab"), tmp.path());
    let head = format!(
        "POST /api/goto HTTP/1.1\r\nHost: {}\r\nX-Klog-Token: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n",
        server.host(),
        server.token
    );
    let stalled: Vec<TcpStream> = (0..WORKERS + QUEUE_MAX + 16)
        .map(|_| {
            let mut c = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
            c.write_all(head.as_bytes()).unwrap();
            c
        })
        .collect();
    let started = std::time::Instant::now();
    let with_token = format!("X-Klog-Token: {}\r\n", server.token);
    let answered = loop {
        let (status, _) = server.get("/api/state", &with_token);
        if status == 200 {
            break true;
        }
        assert_eq!(status, 503, "busy is the only other answer (after {:?})", started.elapsed());
        if started.elapsed() > Duration::from_secs(REQUEST_SECONDS * 4) {
            break false;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(answered, "the lab did not answer within {} s of the stall", REQUEST_SECONDS * 4);
    // A stalled client that got a worker was cut off at its deadline with 408.
    let mut first = &stalled[0];
    first.set_read_timeout(Some(Duration::from_secs(REQUEST_SECONDS * 4))).unwrap();
    let mut reply = String::new();
    let _ = std::io::Read::read_to_string(&mut first, &mut reply);
    assert!(reply.starts_with("HTTP/1.1 408") || reply.starts_with("HTTP/1.1 503"), "{reply:?}");
}
