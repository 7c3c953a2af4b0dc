//! `klog lab`: one page on 127.0.0.1 where a learner acts on real replica dirs by clicking and
//! sees, after each action, the replicas' picture, the code that ran and klog's output; goes
//! back to any frame and forks from it; asks the explorer for the shortest way to lose an
//! acknowledged write from there; and copies the history as a klog script.
//!
//! A front end like the terminal (`main` starts it): [`session`] runs klog's commands through
//! the one dispatcher and renders their reports with the output layer, [`wire`] holds the JSON
//! replies' structs, [`server`] checks and routes the requests, and [`http`] speaks HTTP/1.1
//! over std's listener: a fixed pool of workers behind a bounded queue, and a deadline on every
//! connection, so clients that stall cannot hold the lab. The page (HTML, CSS and JS) is
//! embedded; nothing comes from the network.

pub mod http;
pub mod server;
pub mod session;
pub mod wire;

use crate::error::{Error, IoContext, Result};
use crate::explore::model::{Action, Config, Violation, MAX_EPOCHS, MAX_RECORDS};
use crate::explore::search::search_from;
use crate::replication::release::Rules;
use server::{error_reply, json_reply, parse, Facts, Reply};
use session::{Session, Step};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The page, embedded.
const PAGE: &str = include_str!("page.html");

/// The explorer's caps: wall time, distinct states (about 200 bytes each at the frontier).
pub const EXPLORE_SECONDS: u64 = 10;
pub const EXPLORE_STATES_MAX: u64 = 300_000;
/// Epochs, records and actions the explorer may add to the current state.
const EXPLORE_MORE_EPOCHS: usize = 2;
const EXPLORE_MORE_RECORDS: usize = 2;
const EXPLORE_DEPTH: u32 = 10;

pub struct LabOptions {
    /// The lab dir (empty or absent); `None`: a new one under `temp_dir`.
    pub dir: Option<PathBuf>,
    pub port: u16,
    pub temp_dir: PathBuf,
}

/// The explorer's last run and whether one is running.
#[derive(Default)]
pub struct Explorer {
    pub running: bool,
    /// (branch, frame, mode) it ran for, what it found, and the steps of its counterexample
    /// (replayed by `/api/replay` as they are, rules included).
    pub result: Option<ExplorerResult>,
}

/// The explorer's answer: (branch, frame, mode) it ran for, what it found, its steps.
pub type ExplorerResult = ((usize, usize, String), wire::Outcome, Vec<Step>);

pub struct Lab {
    pub session: Session,
    pub explorer: Arc<Mutex<Explorer>>,
}

/// 128 random bits from the OS, as hex.
fn token() -> Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .at("/dev/urandom", "read")?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// `dir` with every symlink and `..` resolved: the canonical path of its nearest existing
/// ancestor, and the absent components after it. A dangling symlink (or a component that
/// cannot be resolved) is refused: where the lab would write must be known before it is checked.
fn resolve(dir: &Path) -> Result<PathBuf> {
    let mut absent: Vec<std::ffi::OsString> = Vec::new();
    let mut at = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir().map_err(|e| Error::io(dir, "resolve", e))?.join(dir)
    };
    loop {
        match at.canonicalize() {
            Ok(real) => return Ok(absent.iter().rev().fold(real, |p, name| p.join(name))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && std::fs::symlink_metadata(&at).is_err() => {
                let (Some(name), Some(parent)) = (at.file_name(), at.parent()) else {
                    return Err(Error::layout(dir, "cannot be resolved to a directory path"));
                };
                absent.push(name.to_os_string());
                at = parent.to_path_buf();
            }
            Err(e) => {
                return Err(Error::layout(
                    dir,
                    format!("cannot be resolved ({} is a dangling symlink or unreadable: {e})", at.display()),
                ))
            }
        }
    }
}

/// The lab dir, resolved (symlinks followed) before it is checked: refused if it exists and is
/// not an empty dir, or sits in a Kafka log dir — a symlink into a partition dir is the
/// partition dir.
fn lab_dir(opts: &LabOptions) -> Result<PathBuf> {
    let named = opts.dir.clone().unwrap_or_else(|| {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        opts.temp_dir.join(format!("klog-lab-{}-{nanos}", std::process::id()))
    });
    let dir = resolve(&named)?;
    if dir.exists() && !dir.is_dir() {
        return Err(Error::layout(&dir, "is not a directory; --dir takes an empty or absent directory for the lab"));
    }
    if dir.exists() && std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, "list", e))?.next().is_some() {
        return Err(Error::layout(&dir, "directory exists and is not empty; the lab needs an empty one"));
    }
    for ancestor in dir.ancestors().skip(1) {
        if let Some(file) = crate::durable::output::kafka_dir_evidence(ancestor) {
            return Err(Error::layout(
                &dir,
                format!(
                    "is inside a Kafka log dir ({} holds {file}){}; the lab's replicas go elsewhere",
                    ancestor.display(),
                    if dir == named { String::new() } else { format!(", where {} leads", named.display()) }
                ),
            ));
        }
    }
    Ok(dir)
}

/// Serve the lab until the process is stopped (Ctrl-C). Prints the URL and the lab dir.
pub fn run(opts: &LabOptions, out: &mut dyn Write) -> Result<()> {
    let root = lab_dir(opts)?;
    let token = token()?;
    let listener = std::net::TcpListener::bind(("127.0.0.1", opts.port))
        .map_err(|e| Error::Usage(format!("lab: cannot listen on 127.0.0.1:{}: {e}", opts.port)))?;
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(opts.port);
    crate::durable::create_dir(&root)?;
    let session = Session::new(&root, 2)?;
    // The lab dir stays whatever happens next: nothing to undo.
    crate::durable::journal::finish();
    writeln!(out, "klog lab: http://127.0.0.1:{port}/?token={token}").at("<stdout>", "write")?;
    writeln!(out, "lab dir: {}", root.display()).at("<stdout>", "write")?;
    writeln!(out, "open the URL in a browser; Ctrl-C stops the lab (the lab dir stays)").at("<stdout>", "write")?;
    out.flush().at("<stdout>", "write")?;
    let shared = Arc::new(Mutex::new(Lab { session, explorer: Arc::default() }));
    http::serve(listener, move |connection| handle(connection, &shared, port, &token));
    Ok(())
}

/// Send `reply` with the lab's security headers.
fn respond(connection: http::Connection, reply: Reply) -> std::io::Result<()> {
    let headers = [
        ("Cache-Control", "no-store"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; \
             connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ),
    ];
    let reply = http::Reply {
        status: reply.status,
        content_type: reply.content_type,
        headers: &headers,
        body: reply.body.as_bytes(),
    };
    connection.respond(&reply)
}

fn handle(mut connection: http::Connection, shared: &server::Shared, port: u16, token: &str) {
    let head = match connection.read_head() {
        Ok(h) => h,
        Err(http::Unread { status: Some(status), reason }) => {
            let _ = respond(connection, error_reply(status, &reason));
            return;
        }
        Err(_) => return,
    };
    let facts = Facts {
        method: &head.method,
        url: &head.url,
        host: head.header("host"),
        origin: head.header("origin"),
        token_header: head.header(server::TOKEN_HEADER),
        content_type: head.header("content-type"),
        content_length: head.header("content-length").map(|v| v.trim().parse().unwrap_or(usize::MAX)),
    };
    let reply = match server::check(&facts, port, token) {
        Err(refusal) => error_reply(refusal.status, &refusal.reason),
        Ok(path) => {
            let path = path.to_string();
            // `check` bounded the declared length.
            let declared = facts.content_length.unwrap_or(0);
            let body = if head.method == "POST" {
                match connection.read_body(declared) {
                    Ok(b) => b,
                    Err(http::Unread { status, reason }) => {
                        let status = status.unwrap_or(400);
                        let _ = respond(connection, error_reply(status, &format!("reading the body: {reason}")));
                        return;
                    }
                }
            } else {
                Vec::new()
            };
            route(&head.method, &path, &body, shared)
        }
    };
    let _ = respond(connection, reply);
}

fn route(method: &str, path: &str, body: &[u8], shared: &server::Shared) -> Reply {
    let mut lab = shared.lock().unwrap_or_else(|e| e.into_inner());
    let result: std::result::Result<(), Reply> = match (method, path) {
        ("GET", "/") => return Reply { status: 200, body: PAGE.to_string(), content_type: "text/html; charset=utf-8" },
        ("GET", "/api/state") => Ok(()),
        ("POST", "/api/act") => parse::<server::ActBody>(body).and_then(|b| {
            let step = server::step_of(&b, &lab.session).map_err(|e| error_reply(400, &e))?;
            lab.session.act(session::LabStep::Model(step)).map_err(|e| error_reply(409, &e.to_string()))
        }),
        ("POST", "/api/goto") => parse::<server::GotoBody>(body)
            .and_then(|b| lab.session.goto(b.branch, b.frame).map_err(|e| error_reply(400, &e))),
        ("POST", "/api/reset") => parse::<server::ResetBody>(body).and_then(|b| {
            if !(2..=3).contains(&b.replicas) {
                return Err(error_reply(400, "replicas: 2 or 3"));
            }
            lab.session.reset(b.replicas).map_err(|e| error_reply(409, &e.to_string()))
        }),
        ("POST", "/api/explore") => parse::<server::ExploreBody>(body).and_then(|b| start_explorer(&lab, &b.mode)),
        ("POST", "/api/preset") => parse::<server::PresetBody>(body).and_then(|b| {
            let made = match b.scene.as_deref() {
                None | Some("watch") => lab.session.preset_watch(),
                Some("stuck-lso") => lab.session.preset_stuck_lso(),
                Some("tiers") => lab.session.preset_tiers(),
                Some(_) => return Err(error_reply(400, "scene: watch, stuck-lso or tiers")),
            };
            made.map_err(|e| error_reply(409, &e.to_string()))
        }),
        ("POST", "/api/txn") => parse::<server::TxnBody>(body).and_then(|b| {
            let act = server::txn_act_of(&b).map_err(|e| error_reply(400, &e))?;
            lab.session.act_txn(act).map_err(|e| error_reply(409, &e.to_string()))
        }),
        ("POST", "/api/eras") => parse::<server::EmptyBody>(body)
            .and_then(|_| lab.session.fork_eras().map_err(|e| error_reply(409, &e.to_string()))),
        ("POST", "/api/replay") => parse::<server::EmptyBody>(body).and_then(|_| replay_explorer(&mut lab)),
        (
            _,
            "/" | "/api/state" | "/api/act" | "/api/goto" | "/api/reset" | "/api/explore" | "/api/preset" | "/api/eras"
            | "/api/replay" | "/api/txn",
        ) => Err(error_reply(405, "wrong method for this path")),
        _ => Err(error_reply(404, "no such path")),
    };
    match result {
        Ok(()) => json_reply(200, wire::state_body(&lab)),
        Err(reply) => reply,
    }
}

/// Replay the explorer's counterexample from the frame it was found for, in a new branch.
fn replay_explorer(lab: &mut Lab) -> std::result::Result<(), Reply> {
    let ex = lab.explorer.lock().unwrap_or_else(|e| e.into_inner());
    let ((b, f, _), _, steps) = match &ex.result {
        Some(r) if !ex.running && !r.2.is_empty() => r.clone(),
        _ => return Err(error_reply(409, "no counterexample to replay: ask the explorer first")),
    };
    drop(ex);
    lab.session.replay((b, f), &steps).map_err(|e| error_reply(409, &e.to_string()))
}

/// Start the explorer from the viewed frame's model state, in the background.
fn start_explorer(lab: &Lab, mode_name: &str) -> std::result::Result<(), Reply> {
    let mode = server::mode_of(mode_name).map_err(|e| error_reply(400, &e))?;
    let (b, f) = lab.session.view;
    let key = (b, f, mode.name().to_string());
    let state = match &lab.session.frame().model {
        Ok(s) => *s,
        Err(why) => {
            let mut ex = lab.explorer.lock().unwrap_or_else(|e| e.into_inner());
            ex.result = Some((key, wire::Outcome::no_fit(why), Vec::new()));
            return Ok(());
        }
    };
    let mut ex = lab.explorer.lock().unwrap_or_else(|e| e.into_inner());
    if ex.running {
        return Err(error_reply(409, "the explorer is already running"));
    }
    ex.running = true;
    ex.result = None;
    drop(ex);
    let replicas = lab.session.replicas;
    let slot = lab.explorer.clone();
    std::thread::spawn(move || {
        let rules = Rules::of_mode(mode);
        let cfg = Config {
            max_epochs: (state.epochs_issued as usize + EXPLORE_MORE_EPOCHS).min(MAX_EPOCHS) as u8,
            max_records: (state.appended as usize + EXPLORE_MORE_RECORDS).min(MAX_RECORDS) as u8,
            max_depth: EXPLORE_DEPTH,
            // The lab's elections are the user's: the explorer goes on from them the same way.
            controller: crate::explore::model::Controller::Free,
            ..Config::clean_at(rules, replicas, 0, 0, 0)
        };
        let deadline = Instant::now() + Duration::from_secs(EXPLORE_SECONDS);
        let out = search_from(&cfg, state, 1, EXPLORE_STATES_MAX, Some(deadline), &|_, v| {
            matches!(v, Violation::AckedLoss { .. })
        });
        let found: Vec<Step> = out
            .counterexample
            .as_ref()
            .map_or(Vec::new(), |ce| ce.actions.iter().map(|a: &Action| Step::new(*a, rules)).collect());
        let steps: Vec<String> = found.iter().map(|s| s.command(replicas)).collect();
        let s = &out.stats;
        let result = wire::Outcome::Searched {
            bounds: format!(
                "clean elections, fencing; up to {} epochs and {} records in all, {} more actions",
                cfg.max_epochs, cfg.max_records, cfg.max_depth
            ),
            capped: s.capped,
            exhaustive: s.exhaustive,
            fits: true,
            found: out.counterexample.is_some(),
            mode: mode.name(),
            seconds: (s.seconds * 1000.0).round() / 1000.0,
            states: s.states,
            steps,
            timed_out: s.timed_out,
            violation: out.counterexample.as_ref().map(|ce| session::violation_text(&ce.violation)),
        };
        let mut ex = slot.lock().unwrap_or_else(|e| e.into_inner());
        ex.running = false;
        ex.result = Some((key, result, found));
    });
    Ok(())
}
