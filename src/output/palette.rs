//! The one place colours are chosen. Colour is applied only when the settings say so (a
//! terminal, no NO_COLOR, or `--color always`), never to JSON. Prose gets escape codes around
//! its words; table cells get comfy-table's own styling, which is applied after the layout so
//! escape codes never count as width.

use comfy_table::{Attribute, Cell, Color};
use owo_colors::OwoColorize;

/// What a piece of output means, which decides its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Good,
    Bad,
    Warn,
    Dim,
    Strong,
    /// A leader epoch: each gets its own colour, so runs of one epoch stand out.
    Epoch(i32),
}

#[derive(Debug, Clone, Copy)]
pub struct Palette {
    pub enabled: bool,
}

/// The colour of each leader epoch, cycling.
const EPOCH_COLORS: [Color; 6] = [Color::Cyan, Color::Magenta, Color::Blue, Color::Yellow, Color::Green, Color::Red];

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

    /// A table cell holding `text` in `tone`, styled by comfy-table (plain when colour is off).
    pub fn cell(&self, text: impl ToString, tone: Tone) -> Cell {
        let cell = Cell::new(text.to_string());
        if !self.enabled {
            return cell;
        }
        match tone {
            Tone::Plain => cell,
            Tone::Good => cell.fg(Color::Green),
            Tone::Bad => cell.fg(Color::Red).add_attribute(Attribute::Bold),
            Tone::Warn => cell.fg(Color::Yellow),
            Tone::Dim => cell.add_attribute(Attribute::Dim),
            Tone::Strong => cell.add_attribute(Attribute::Bold),
            Tone::Epoch(e) if e < 0 => cell,
            Tone::Epoch(e) => cell.fg(EPOCH_COLORS[(e % 6) as usize]),
        }
    }
}
