//! The Kafka oracle as a server (`kafka-oracle` `serve`): one JVM that stays up, takes one JSON
//! request per line and answers one JSON line per request, in order, with the request's id. The
//! generated comparisons (`difffuzz`) send thousands of cases through it; a case that throws
//! or hangs in Kafka's code is an answer (`server_error`), never the end of the server.
//!
//! Requests are written from a thread of their own while answers are read, so that a batch of
//! any size never fills both pipes at once.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdout, Stdio};

/// One running oracle JVM.
pub struct OracleServer {
    child: Child,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

/// What to ask of Kafka about one dir.
pub enum Ask<'a> {
    /// `LogManager.loadLogs` (and `KafkaRaftLog.createLog`) on `dir`, with topic overrides.
    Load { dir: &'a Path, overrides: &'a [String] },
    /// Delete the derived files, load, shut down cleanly: Kafka rebuilds them in place.
    Rebuild { dir: &'a Path, overrides: &'a [String] },
    /// `DumpLogSegments` with these arguments.
    Dump { args: &'a [String] },
}

impl OracleServer {
    /// Start the server, if the oracle is built (see [`crate::oracle::oracle`]).
    pub fn start() -> Option<OracleServer> {
        let mut c = crate::oracle::oracle()?;
        let mut child = c
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("java runs");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Some(OracleServer { child, stdout, next_id: 0 })
    }

    /// Ask every question, in order; one answer each, in the same order.
    pub fn ask_all(&mut self, asks: &[Ask<'_>]) -> Vec<Value> {
        let first = self.next_id;
        let lines: Vec<String> = asks
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let id = first + i as u64;
                let v = match a {
                    Ask::Load { dir, overrides } => json!({"id": id, "op": "load", "dir": dir, "overrides": overrides}),
                    Ask::Rebuild { dir, overrides } => {
                        json!({"id": id, "op": "rebuild", "dir": dir, "overrides": overrides})
                    }
                    Ask::Dump { args } => json!({"id": id, "op": "dump", "args": args}),
                };
                v.to_string() + "\n"
            })
            .collect();
        self.next_id += asks.len() as u64;
        let mut stdin = self.child.stdin.take().expect("the server's stdin");
        let writer = std::thread::spawn(move || {
            for l in &lines {
                stdin.write_all(l.as_bytes()).expect("the oracle server takes requests");
            }
            stdin.flush().expect("flush to the oracle server");
            stdin
        });
        let mut answers = Vec::with_capacity(asks.len());
        for i in 0..asks.len() {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read from the oracle server");
            assert!(n > 0, "the oracle server ended after {i} of {} answers", asks.len());
            let v: Value = serde_json::from_str(&line).expect("the oracle server answers JSON");
            assert_eq!(v["id"].as_u64(), Some(first + i as u64), "answers come in order");
            answers.push(v);
        }
        self.child.stdin = Some(writer.join().expect("the writer thread"));
        answers
    }
}

impl Drop for OracleServer {
    fn drop(&mut self) {
        // Closing stdin ends the server; wait so no JVM outlives the test.
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}
