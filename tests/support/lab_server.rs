//! `klog lab` as a user starts it (`--dir D --port 0`), its URL read from stdout, spoken to
//! with raw HTTP requests over std's TcpStream: shared by the fast tier's refusals
//! (tests/cli/lab.rs) and the browser tier's clicks (tests/browser/lab.rs).

use crate::common::s;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// `create`'s time in `meta.properties` (its Properties.store date line), the same in the lab
/// and in the script's run.
pub const SOURCE_DATE_EPOCH: &str = "1796083200";

/// A running `klog lab`, stopped when dropped.
pub struct Server {
    child: Child,
    pub port: u16,
    pub token: String,
    pub url: String,
}

impl Server {
    pub fn start(dir: &Path, tmp: &Path) -> Server {
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
    pub fn raw(&self, request: &str) -> (u16, String) {
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

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn get(&self, path: &str, extra: &str) -> (u16, String) {
        self.raw(&format!("GET {path} HTTP/1.1\r\nHost: {}\r\n{extra}Connection: close\r\n\r\n", self.host()))
    }

    pub fn post(&self, path: &str, content_type: &str, body: &str, extra: &str) -> (u16, String) {
        self.raw(&format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nX-Klog-Token: {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
            self.host(),
            self.token,
            body.len()
        ))
    }

    pub fn act(&self, body: &str) -> serde_json::Value {
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

pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}
