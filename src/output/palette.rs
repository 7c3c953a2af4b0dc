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

/// The Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008): eight colours that
/// stay apart for readers with any common colour-vision deficiency. The picture (`klog draw`,
/// the demo, the SVG and the capture) gives each leader epoch one of them, in this order, so
/// epochs 0–7 are all distinct; the epoch number is always printed too.
pub const OKABE_ITO: [(u8, u8, u8); 8] = [
    (0xE6, 0x9F, 0x00), // orange
    (0x56, 0xB4, 0xE9), // sky blue
    (0x00, 0x9E, 0x73), // bluish green
    (0xF0, 0xE4, 0x42), // yellow
    (0x00, 0x72, 0xB2), // blue
    (0xD5, 0x5E, 0x00), // vermillion
    (0xCC, 0x79, 0xA7), // reddish purple
    (0x99, 0x99, 0x99), // grey
];

/// The Okabe–Ito colour of a leader epoch (cycling after eight).
pub fn epoch_rgb(leader_epoch: i32) -> (u8, u8, u8) {
    OKABE_ITO[leader_epoch.rem_euclid(OKABE_ITO.len() as i32) as usize]
}

/// The colour of an epoch as CSS/SVG `#rrggbb`.
pub fn epoch_hex(leader_epoch: i32) -> String {
    let (r, g, b) = epoch_rgb(leader_epoch);
    format!("#{r:02x}{g:02x}{b:02x}")
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

    /// A picture cell: `t` on its epoch's Okabe–Ito colour (black or white text, whichever
    /// reads better on it). Plain when colour is off: the epoch number is in the text anyway.
    pub fn epoch_block(&self, leader_epoch: i32, t: &str) -> String {
        if !self.enabled || leader_epoch < 0 {
            return t.to_string();
        }
        let (r, g, b) = epoch_rgb(leader_epoch);
        // Relative luminance (ITU-R BT.601 weights) decides the text colour.
        let light = u32::from(r) * 299 + u32::from(g) * 587 + u32::from(b) * 114 > 128_000;
        let on = t.on_truecolor(r, g, b);
        if light {
            on.black().to_string()
        } else {
            on.white().to_string()
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
