//! The lab's HTTP front: who may ask (token, Host, Origin), how (GET for reads, POST with a
//! bounded JSON body for changes) and the routes. Any page the user's browser visits can send
//! requests to 127.0.0.1, so every request must carry the per-run token, name this server in
//! its Host (no DNS rebinding) and, if it says where it comes from, come from this server's
//! own origin. The checks are pure functions of the request's facts, tested here.

use super::session::{replica_index, rules_for, Session, Step, TxnAct};
use crate::explore::model::Action;
use crate::replication::truncation::TruncationMode;
use serde::Deserialize;
use std::sync::{Arc, Mutex};

/// Largest request body read.
pub const BODY_BYTES_MAX: usize = 16 * 1024;
/// The header the page sends the token in.
pub const TOKEN_HEADER: &str = "x-klog-token";

/// What a request says about itself, as the checks need it.
#[derive(Debug, Clone, Default)]
pub struct Facts<'a> {
    pub method: &'a str,
    /// The path with its query.
    pub url: &'a str,
    pub host: Option<&'a str>,
    pub origin: Option<&'a str>,
    pub token_header: Option<&'a str>,
    pub content_type: Option<&'a str>,
    pub content_length: Option<usize>,
}

/// A refusal: the status and a one-line reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub reason: String,
}

fn refuse(status: u16, reason: impl Into<String>) -> Refusal {
    Refusal { status, reason: reason.into() }
}

/// The path of a URL and the value of its `token` query parameter.
pub fn split_url(url: &str) -> (&str, Option<&str>) {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let token = query.split('&').find_map(|kv| kv.strip_prefix("token="));
    (path, token)
}

/// Compare without stopping at the first difference (the token is a secret).
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Check a request before its body is read. `Ok` names the route: the path.
pub fn check<'a>(f: &Facts<'a>, port: u16, token: &str) -> Result<&'a str, Refusal> {
    let hosts = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    match f.host {
        Some(h) if hosts.iter().any(|ok| ok == h) => {}
        Some(h) => return Err(refuse(403, format!("Host {h:?} is not this lab (127.0.0.1:{port})"))),
        None => return Err(refuse(403, "no Host header")),
    }
    if let Some(o) = f.origin {
        if !hosts.iter().any(|h| o == format!("http://{h}")) {
            return Err(refuse(403, format!("Origin {o:?} is not this lab")));
        }
    }
    let (path, query_token) = split_url(f.url);
    // The page itself carries the token in its URL; every other request in a header.
    let given = if path == "/" { query_token } else { f.token_header };
    if !given.is_some_and(|t| same_secret(t, token)) {
        return Err(refuse(403, "missing or wrong token"));
    }
    match f.method {
        "GET" if f.content_length.unwrap_or(0) == 0 => {}
        "GET" => return Err(refuse(400, "a GET has no body")),
        "POST" => {
            let ct = f.content_type.unwrap_or("");
            let media = ct.split(';').next().unwrap_or("").trim();
            if !media.eq_ignore_ascii_case("application/json") {
                return Err(refuse(415, "a POST must be Content-Type: application/json"));
            }
            match f.content_length {
                None => return Err(refuse(411, "a POST needs a Content-Length")),
                Some(n) if n > BODY_BYTES_MAX => {
                    return Err(refuse(413, format!("body of {n} bytes; at most {BODY_BYTES_MAX}")))
                }
                Some(_) => {}
            }
        }
        m => return Err(refuse(405, format!("method {m} not allowed"))),
    }
    Ok(path)
}

/// The body of a POST to `/api/act`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActBody {
    pub kind: String,
    #[serde(default)]
    pub replica: Option<String>,
    #[serde(default)]
    pub leader: Option<String>,
    #[serde(default)]
    pub follower: Option<String>,
    /// Elect: the followers in the ISR (letters).
    #[serde(default)]
    pub isr: Option<Vec<String>>,
    #[serde(default)]
    pub power_loss: Option<bool>,
    /// Recover: hw, kip101 or kip279.
    #[serde(default)]
    pub mode: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GotoBody {
    pub branch: usize,
    pub frame: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResetBody {
    pub replicas: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExploreBody {
    pub mode: String,
}

/// The body of a POST with nothing to say (`/api/preset`, `/api/eras`, `/api/replay`): `{}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmptyBody {}

/// The body of a POST to `/api/preset`: `{}` for the Watch, `{"scene": "stuck-lso"}`,
/// `{"scene": "tiers"}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PresetBody {
    #[serde(default)]
    pub scene: Option<String>,
}

/// The body of a POST to `/api/txn`: `txn`, `timeout`, `admin-abort`, `commit` or `abort`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TxnBody {
    pub kind: String,
}

/// The stuck-lso step a `/api/txn` body asks for.
pub fn txn_act_of(body: &TxnBody) -> Result<TxnAct, String> {
    Ok(match body.kind.as_str() {
        "txn" => TxnAct::Txn,
        "timeout" => TxnAct::CoordinatorTimeout,
        "admin-abort" => TxnAct::AdminAbort,
        "commit" => TxnAct::ProducerEnds { commit: true },
        "abort" => TxnAct::ProducerEnds { commit: false },
        k => {
            return Err(format!(
                "kind {:?}: expected txn, timeout, admin-abort, commit or abort",
                k.chars().take(16).collect::<String>()
            ))
        }
    })
}

/// A truncation mode by name.
pub fn mode_of(name: &str) -> Result<TruncationMode, String> {
    TruncationMode::from_name(name)
        .ok_or_else(|| format!("mode {:?}: expected hw, kip101 or kip279", name.chars().take(12).collect::<String>()))
}

/// The step an `/api/act` body asks for in `session`'s viewed frame.
pub fn step_of(body: &ActBody, session: &Session) -> Result<Step, String> {
    let n = session.replicas;
    let one = |v: &Option<String>, what: &str| -> Result<u8, String> {
        replica_index(v.as_deref().ok_or_else(|| format!("{} needs {what}", body.kind))?, n)
    };
    let model = session.frame().model.as_ref().ok();
    let action = match body.kind.as_str() {
        "append" => {
            let appended = session.appended();
            let value = u8::try_from(appended + 1).map_err(|_| "too many records".to_string())?;
            Action::Append { replica: one(&body.replica, "replica")?, value }
        }
        "fetch" => Action::Fetch { leader: one(&body.leader, "leader")?, follower: one(&body.follower, "follower")? },
        "crash" => Action::Crash {
            replica: one(&body.replica, "replica")?,
            power_loss: body.power_loss.unwrap_or(false),
            hw: None,
        },
        "flush" => Action::Flush { replica: one(&body.replica, "replica")? },
        "restart" => Action::Restart { replica: one(&body.replica, "replica")? },
        "recover" => {
            Action::Recover { follower: one(&body.follower, "follower")?, leader: one(&body.leader, "leader")? }
        }
        "elect" => {
            let replica = one(&body.replica, "replica")?;
            let members = body.isr.as_deref().unwrap_or(&[]);
            if members.len() > n {
                return Err("isr: too many members".into());
            }
            let mut isr = 1u8 << replica;
            for m in members {
                isr |= 1 << replica_index(m, n)?;
            }
            let leader_epoch = i8::try_from(session.next_epoch()).map_err(|_| "too many elections".to_string())?;
            let unclean = model.is_some_and(|s| s.isr & (1 << replica) == 0);
            Action::Elect { replica, leader_epoch, isr, unclean }
        }
        k => {
            return Err(format!(
                "kind {:?}: expected append, fetch, crash, flush, restart, recover or elect",
                k.chars().take(16).collect::<String>()
            ))
        }
    };
    match action {
        Action::Fetch { leader, follower } | Action::Recover { leader, follower } if leader == follower => {
            return Err("leader and follower are the same replica".into())
        }
        _ => {}
    }
    let mode = match (&body.mode, action) {
        (Some(m), Action::Recover { .. }) => Some(mode_of(m)?),
        (None, Action::Recover { .. }) => return Err("recover needs mode".into()),
        (Some(_), _) => return Err("mode goes with recover only".into()),
        (None, _) => None,
    };
    Ok(Step::new(action, rules_for(mode)))
}

/// A JSON response.
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub content_type: &'static str,
}

/// A JSON response: `body` serialized by [`super::wire`].
pub fn json_reply(status: u16, body: String) -> Reply {
    Reply { status, body, content_type: "application/json" }
}

pub fn error_reply(status: u16, reason: &str) -> Reply {
    json_reply(status, super::wire::body(&super::wire::ErrorBody { error: reason }))
}

/// Parse a JSON body into `T`, or a 400 reply.
pub fn parse<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, Reply> {
    if body.len() > BODY_BYTES_MAX {
        return Err(error_reply(413, "body too large"));
    }
    serde_json::from_slice(body).map_err(|e| error_reply(400, &format!("bad JSON: {e}")))
}

/// The shared state the routes work on.
pub type Shared = Arc<Mutex<super::Lab>>;

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "0123456789abcdef0123456789abcdef";

    fn get(url: &'static str) -> Facts<'static> {
        Facts { method: "GET", url, host: Some("127.0.0.1:4000"), token_header: Some(T), ..Default::default() }
    }

    fn post(len: usize) -> Facts<'static> {
        Facts {
            method: "POST",
            url: "/api/act",
            host: Some("127.0.0.1:4000"),
            token_header: Some(T),
            content_type: Some("application/json"),
            content_length: Some(len),
            ..Default::default()
        }
    }

    #[test]
    fn the_page_needs_the_token_in_its_url_and_the_api_in_a_header() {
        let page = Facts { url: "/?token=0123456789abcdef0123456789abcdef", token_header: None, ..get("") };
        assert_eq!(check(&page, 4000, T), Ok("/"));
        assert_eq!(check(&Facts { url: "/?token=nope", ..page.clone() }, 4000, T).unwrap_err().status, 403);
        assert_eq!(check(&Facts { url: "/", ..page.clone() }, 4000, T).unwrap_err().status, 403);
        assert_eq!(check(&get("/api/state"), 4000, T), Ok("/api/state"));
        // The URL's token does not open the API.
        let api_by_url =
            Facts { url: "/api/state?token=0123456789abcdef0123456789abcdef", token_header: None, ..get("") };
        assert_eq!(check(&api_by_url, 4000, T).unwrap_err().status, 403);
        let wrong = Facts { token_header: Some("0123456789abcdef0123456789abcdeX"), ..get("/api/state") };
        assert_eq!(check(&wrong, 4000, T).unwrap_err().status, 403);
        let short = Facts { token_header: Some("0123"), ..get("/api/state") };
        assert_eq!(check(&short, 4000, T).unwrap_err().status, 403);
    }

    #[test]
    fn host_must_name_this_server_and_origin_its_own() {
        assert!(check(&Facts { host: Some("localhost:4000"), ..get("/api/state") }, 4000, T).is_ok());
        for host in [Some("evil.example:4000"), Some("127.0.0.1:4001"), Some("127.0.0.1"), None] {
            assert_eq!(check(&Facts { host, ..get("/api/state") }, 4000, T).unwrap_err().status, 403, "{host:?}");
        }
        assert!(check(&Facts { origin: Some("http://localhost:4000"), ..post(2) }, 4000, T).is_ok());
        for origin in ["http://evil.example", "http://127.0.0.1:4001", "null", "https://127.0.0.1:4000"] {
            assert_eq!(check(&Facts { origin: Some(origin), ..post(2) }, 4000, T).unwrap_err().status, 403, "{origin}");
        }
    }

    #[test]
    fn changes_come_by_post_with_bounded_json() {
        assert!(check(&post(BODY_BYTES_MAX), 4000, T).is_ok());
        assert_eq!(check(&post(BODY_BYTES_MAX + 1), 4000, T).unwrap_err().status, 413);
        assert_eq!(check(&Facts { content_type: Some("text/plain"), ..post(2) }, 4000, T).unwrap_err().status, 415);
        assert_eq!(check(&Facts { content_type: None, ..post(2) }, 4000, T).unwrap_err().status, 415);
        assert!(check(&Facts { content_type: Some("application/json; charset=utf-8"), ..post(2) }, 4000, T).is_ok());
        assert_eq!(check(&Facts { content_length: None, ..post(2) }, 4000, T).unwrap_err().status, 411);
        assert_eq!(check(&Facts { method: "PUT", ..post(2) }, 4000, T).unwrap_err().status, 405);
        assert_eq!(check(&Facts { content_length: Some(3), ..get("/api/state") }, 4000, T).unwrap_err().status, 400);
    }

    #[test]
    fn bodies_parse_strictly() {
        assert!(parse::<ActBody>(br#"{"kind":"append","replica":"b"}"#).is_ok());
        assert_eq!(parse::<ActBody>(b"{").err().unwrap().status, 400);
        assert_eq!(parse::<ActBody>(br#"{"kind":"append","path":"/etc"}"#).err().unwrap().status, 400);
        assert_eq!(parse::<GotoBody>(br#"{"branch":-1,"frame":0}"#).err().unwrap().status, 400);
        let big = vec![b' '; BODY_BYTES_MAX + 1];
        assert_eq!(parse::<ActBody>(&big).err().unwrap().status, 413);
    }
}
