//! The lab's HTTP/1.1, as small as the page needs: one request per connection (every reply
//! says `Connection: close`), a bounded head, a body only by `Content-Length`, a reply always
//! with its length. Over std's `TcpListener`, so that every connection has a deadline: a client
//! that declares a body and never sends it, or trickles its head a byte at a time, holds a
//! worker for at most [`REQUEST_SECONDS`], never the lab.
//!
//! Connections wait in a bounded queue for a fixed pool of [`WORKERS`]; when the queue is full
//! the accept loop answers 503 at once (a short write deadline) and goes on accepting. Nothing
//! here knows the lab's routes or checks: [`serve`] hands each connection to the handler,
//! which reads the head, decides, reads the body if it wants it, and replies.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::{sync_channel, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Connections served at once.
pub const WORKERS: usize = 8;
/// Connections accepted and waiting for a worker; more are answered 503.
pub const QUEUE_MAX: usize = 64;
/// The most a request (head and body) may take to arrive from the first byte read.
pub const REQUEST_SECONDS: u64 = 5;
/// The most a reply may take to leave.
const WRITE_SECONDS: u64 = 10;
/// The largest request head (request line and headers).
pub const HEAD_BYTES_MAX: usize = 16 * 1024;

/// A request's head: its method, URL (path and query) and headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// A header's value (the first of that name, any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// A reply: status, media type, body.
pub struct Reply<'a> {
    pub status: u16,
    pub content_type: &'a str,
    pub headers: &'a [(&'a str, &'a str)],
    pub body: &'a [u8],
}

/// One client connection, read against its deadline.
pub struct Connection {
    stream: TcpStream,
    deadline: Instant,
    /// Bytes read past the head: the start of the body.
    pending: Vec<u8>,
}

/// Why a request could not be read: a status to answer with (or none: the client is gone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    pub status: Option<u16>,
    pub reason: String,
}

fn unread(status: Option<u16>, reason: impl Into<String>) -> Unread {
    Unread { status, reason: reason.into() }
}

impl Connection {
    fn new(stream: TcpStream) -> Connection {
        Connection { stream, deadline: Instant::now() + Duration::from_secs(REQUEST_SECONDS), pending: Vec::new() }
    }

    /// Read some bytes before the deadline; `Ok(0)` at the end of the stream.
    fn read_some(&mut self, buf: &mut [u8]) -> Result<usize, Unread> {
        let late = || unread(Some(408), format!("the request did not arrive within {REQUEST_SECONDS} s"));
        loop {
            // Past the deadline, what has already arrived is still read (a request that waited
            // in the queue was sent in time); only waiting for more is over.
            // A second past it, a client that trickles bytes is cut off too.
            let now = Instant::now();
            if now > self.deadline + Duration::from_secs(1) {
                return Err(late());
            }
            let left = self.deadline.saturating_duration_since(now).max(Duration::from_millis(1));
            self.stream.set_read_timeout(Some(left)).map_err(|e| unread(None, e.to_string()))?;
            match self.stream.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                    return Err(late())
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(unread(None, e.to_string())),
            }
        }
    }

    /// Read and parse the head.
    pub fn read_head(&mut self) -> Result<Head, Unread> {
        let mut head = Vec::new();
        let mut chunk = [0u8; 4096];
        let end = loop {
            if let Some(i) = find(&head, b"\r\n\r\n") {
                break i;
            }
            if head.len() > HEAD_BYTES_MAX {
                return Err(unread(Some(431), format!("request head over {HEAD_BYTES_MAX} bytes")));
            }
            let n = self.read_some(&mut chunk)?;
            if n == 0 {
                return Err(unread(None, "the client closed the connection"));
            }
            head.extend_from_slice(&chunk[..n]);
        };
        self.pending = head.split_off(end + 4);
        parse_head(&head[..end])
    }

    /// Read a body of `len` bytes (the caller bounds `len`).
    pub fn read_body(&mut self, len: usize) -> Result<Vec<u8>, Unread> {
        let mut body = std::mem::take(&mut self.pending);
        body.truncate(len);
        let mut chunk = [0u8; 4096];
        while body.len() < len {
            let want = (len - body.len()).min(chunk.len());
            let n = self.read_some(&mut chunk[..want])?;
            if n == 0 {
                return Err(unread(Some(400), format!("the body ended after {} of {len} bytes", body.len())));
            }
            body.extend_from_slice(&chunk[..n]);
        }
        Ok(body)
    }

    /// Send the reply and close.
    pub fn respond(mut self, reply: &Reply<'_>) -> std::io::Result<()> {
        self.stream.set_write_timeout(Some(Duration::from_secs(WRITE_SECONDS)))?;
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
            reply.status,
            reason_phrase(reply.status),
            reply.content_type,
            reply.body.len()
        );
        for (k, v) in reply.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        self.stream.write_all(head.as_bytes())?;
        self.stream.write_all(reply.body)?;
        self.stream.flush()?;
        let _ = self.stream.shutdown(std::net::Shutdown::Write);
        Ok(())
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The request line and headers (CRLF-separated, no final blank line).
fn parse_head(bytes: &[u8]) -> Result<Head, Unread> {
    let text = std::str::from_utf8(bytes).map_err(|_| unread(Some(400), "the request head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or("");
    let mut parts = line.split(' ');
    let (method, url, version) = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(m), Some(u), Some(v), None) if !m.is_empty() && u.starts_with('/') => (m, u, v),
        _ => return Err(unread(Some(400), "expected a request line: METHOD /path HTTP/1.1")),
    };
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(unread(Some(505), format!("HTTP version {version:?} not supported")));
    }
    let mut headers = Vec::new();
    for h in lines {
        let (k, v) = h.split_once(':').ok_or_else(|| unread(Some(400), "expected a header: Name: value"))?;
        if k.is_empty() || k.bytes().any(|b| b.is_ascii_whitespace()) {
            return Err(unread(Some(400), "expected a header name without spaces"));
        }
        headers.push((k.to_string(), v.trim().to_string()));
    }
    let head = Head { method: method.to_string(), url: url.to_string(), headers };
    if head.header("transfer-encoding").is_some() {
        return Err(unread(Some(501), "a body is read only by its Content-Length"));
    }
    Ok(head)
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Error",
    }
}

/// Accept connections forever, each served by `handle` on one of [`WORKERS`] threads; a
/// connection that finds the queue full is answered 503 by the accept loop itself.
pub fn serve(listener: TcpListener, handle: impl Fn(Connection) + Send + Sync + 'static) {
    // The deadline runs from the accept: a connection that stalls while it waits in the queue
    // has used up its time when a worker takes it.
    let (queue, waiting) = sync_channel::<Connection>(QUEUE_MAX);
    let waiting = Arc::new(Mutex::new(waiting));
    let handle = Arc::new(handle);
    for _ in 0..WORKERS {
        let (waiting, handle) = (waiting.clone(), handle.clone());
        std::thread::spawn(move || loop {
            let next = waiting.lock().unwrap_or_else(|e| e.into_inner()).recv();
            match next {
                Ok(connection) => handle(connection),
                Err(_) => return,
            }
        });
    }
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                eprintln!("klog: warning: lab: {}", crate::escape::text(&e.to_string()));
                continue;
            }
        };
        if let Err(TrySendError::Full(mut connection)) = queue.try_send(Connection::new(stream)) {
            // Read what the client has sent (briefly: this is the accept loop), so that closing
            // does not reset the connection before it reads the 503.
            connection.deadline = Instant::now() + Duration::from_millis(50);
            let _ = connection.read_head();
            let _ = connection.stream.set_write_timeout(Some(Duration::from_secs(1)));
            let body = br#"{"error":"busy: too many connections waiting; try again"}"#;
            let busy = Reply { status: 503, content_type: "application/json", headers: &[], body };
            let _ = connection.respond(&busy);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_parses_into_method_url_and_headers() {
        let head = parse_head(b"POST /api/act?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9\r\nContent-Length: 2").unwrap();
        assert_eq!((head.method.as_str(), head.url.as_str()), ("POST", "/api/act?x=1"));
        assert_eq!(head.header("content-length"), Some("2"));
        assert_eq!(head.header("HOST"), Some("127.0.0.1:9"));
        for bad in
            [&b"GET"[..], b"GET / HTTP/1.1 x", b"GET nope HTTP/1.1", b"GET / HTTP/1.1\r\nno colon", b"\xff / HTTP/1.1"]
        {
            assert_eq!(parse_head(bad).unwrap_err().status, Some(400), "{}", String::from_utf8_lossy(bad));
        }
        assert_eq!(parse_head(b"GET / HTTP/2").unwrap_err().status, Some(505));
        assert_eq!(parse_head(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked").unwrap_err().status, Some(501));
    }

    /// A client that sends its head and never its body holds one connection for at most
    /// [`REQUEST_SECONDS`], then gets 408.
    #[test]
    fn a_body_that_never_comes_ends_at_the_deadline() {
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
        client.write_all(b"POST /x HTTP/1.1\r\nContent-Length: 10\r\n\r\nab").unwrap();
        let (server_side, _) = listener.accept().unwrap();
        let mut conn = Connection::new(server_side);
        conn.deadline = Instant::now() + Duration::from_millis(300);
        let head = conn.read_head().unwrap();
        assert_eq!(head.header("content-length"), Some("10"));
        let started = Instant::now();
        assert_eq!(conn.read_body(10).unwrap_err().status, Some(408));
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}
