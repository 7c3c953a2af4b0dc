//! Renderers: reports and event streams in, text or JSON lines out, into any `Write`.
//! Nothing here decides what is true about a log; it only shows it.

pub mod demo;
pub mod dump_log;
pub mod explore;
pub mod json;
pub mod palette;
pub mod progress;
pub mod report;
pub mod table;
pub mod text;

use palette::Palette;

/// Output settings resolved once in `main`.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub color: bool,
    /// Whether stdout is a terminal (tables may then fit its width).
    pub tty: bool,
    /// Whether long work may show progress on stderr.
    pub progress: bool,
}

impl Settings {
    pub fn palette(&self) -> Palette {
        Palette { enabled: self.color }
    }
}

/// Show bytes for people: UTF-8 text as is (control characters escaped), anything else as hex.
pub fn display_bytes(bytes: Option<&[u8]>, max_chars: usize) -> String {
    let Some(bytes) = bytes else { return "null".to_string() };
    let text = match std::str::from_utf8(bytes) {
        Ok("") => "\"\"".to_string(),
        Ok(s) => s
            .chars()
            .flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] })
            .collect(),
        Err(_) => format!("0x{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()),
    };
    if text.chars().count() > max_chars {
        let cut: String = text.chars().take(max_chars.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        text
    }
}
