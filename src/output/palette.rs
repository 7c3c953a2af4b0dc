//! The one place colours are chosen. Colour is applied only when the settings say so (a
//! terminal, no NO_COLOR, or `--color always`), never to JSON.

use owo_colors::OwoColorize;

#[derive(Debug, Clone, Copy)]
pub struct Palette {
    pub enabled: bool,
}

impl Palette {
    fn paint(&self, text: &str, f: impl Fn(&str) -> String) -> String {
        if self.enabled {
            f(text)
        } else {
            text.to_string()
        }
    }
    pub fn good(&self, t: &str) -> String {
        self.paint(t, |s| s.green().to_string())
    }
    pub fn bad(&self, t: &str) -> String {
        self.paint(t, |s| s.red().bold().to_string())
    }
    pub fn warn(&self, t: &str) -> String {
        self.paint(t, |s| s.yellow().to_string())
    }
    pub fn dim(&self, t: &str) -> String {
        self.paint(t, |s| s.dimmed().to_string())
    }
    pub fn strong(&self, t: &str) -> String {
        self.paint(t, |s| s.bold().to_string())
    }
    /// Each leader epoch gets its own colour, so runs of one epoch stand out.
    pub fn epoch(&self, epoch: i32, t: &str) -> String {
        if !self.enabled || epoch < 0 {
            return t.to_string();
        }
        match epoch % 6 {
            0 => t.cyan().to_string(),
            1 => t.magenta().to_string(),
            2 => t.blue().to_string(),
            3 => t.yellow().to_string(),
            4 => t.green().to_string(),
            _ => t.bright_red().to_string(),
        }
    }
}
