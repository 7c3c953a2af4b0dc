//! The one place colours are chosen. Colour is applied only when the settings say so (a
//! terminal, no NO_COLOR, or `--color always`), never to JSON. Prose gets escape codes around
//! its words; table cells get comfy-table's own styling, which is applied after the layout so
//! escape codes never count as width.

use comfy_table::{Attribute, Cell, Color};

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
    /// The terminal takes 24-bit colour (`COLORTERM=truecolor` or `24bit`); else colours are
    /// sent as the nearest of the 256-colour cube, which every colour terminal takes.
    pub truecolor: bool,
}

/// A colour as 24-bit RGB and as its stand-in in the xterm 256-colour cube.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb {
    pub rgb: (u8, u8, u8),
    pub xterm: u8,
}

const fn rgb(r: u8, g: u8, b: u8, xterm: u8) -> Rgb {
    Rgb { rgb: (r, g, b), xterm }
}

/// The epoch colours: the Okabe–Ito hues (Okabe & Ito, "Color Universal Design", 2008: eight
/// that stay apart for readers with any common colour-vision deficiency), in their order,
/// darkened where needed so each reads as text on a light and on a dark background (contrast
/// at least 3:1 against white and against #1e1e1e, for the RGB and the 256-colour stand-in;
/// tested below). One colour per epoch everywhere: table cells, prose, the picture's blocks,
/// the SVG and the capture; the epoch number is always printed too.
pub const EPOCH_COLOURS: [Rgb; 8] = [
    rgb(0xC2, 0x6E, 0x00, 130), // orange
    rgb(0x1F, 0x8F, 0xBF, 31),  // sky blue
    rgb(0x00, 0x93, 0x6B, 29),  // bluish green
    rgb(0x9A, 0x83, 0x00, 100), // yellow (olive, to read on white)
    rgb(0x5B, 0x6E, 0xE1, 63),  // blue
    rgb(0xD5, 0x5E, 0x00, 166), // vermillion
    rgb(0xB8, 0x60, 0x8F, 132), // reddish purple
    rgb(0x85, 0x85, 0x85, 102), // grey
];

/// Good, warning and bad: green, dark orange, red, each readable on light and dark themes
/// (unlike ANSI bright green, cyan and yellow, which vanish on white).
const GOOD: Rgb = rgb(0x00, 0x87, 0x5F, 29);
const WARN: Rgb = rgb(0xAF, 0x5F, 0x00, 130);
const BAD: Rgb = rgb(0xD7, 0x00, 0x00, 160);

/// The colour of a leader epoch (cycling after eight).
pub fn epoch_colour(leader_epoch: i32) -> Rgb {
    EPOCH_COLOURS[leader_epoch.rem_euclid(EPOCH_COLOURS.len() as i32) as usize]
}

/// The RGB colour of a leader epoch.
pub fn epoch_rgb(leader_epoch: i32) -> (u8, u8, u8) {
    epoch_colour(leader_epoch).rgb
}

/// The colour of an epoch as CSS/SVG `#rrggbb`.
pub fn epoch_hex(leader_epoch: i32) -> String {
    let (r, g, b) = epoch_rgb(leader_epoch);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// An epoch's fill in the SVG: its colour mixed with white, light enough for black text in grey
/// print (the same hue as its text colour).
pub fn epoch_tint_hex(leader_epoch: i32) -> String {
    let (r, g, b) = epoch_rgb(leader_epoch);
    let mix = |c: u8| (u16::from(c) * 2 / 5 + 255 * 3 / 5) as u8;
    format!("#{:02x}{:02x}{:02x}", mix(r), mix(g), mix(b))
}

/// WCAG 2 relative luminance of an sRGB colour.
fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let lin = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/// WCAG 2 contrast ratio of two colours (1 to 21).
pub fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The RGB colour of a 256-colour cube index (16..=231).
pub fn xterm_rgb(index: u8) -> (u8, u8, u8) {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    let n = index.saturating_sub(16).min(215);
    (LEVELS[usize::from(n / 36)], LEVELS[usize::from(n / 6 % 6)], LEVELS[usize::from(n % 6)])
}

impl Palette {
    /// The SGR parameters of `c` as a foreground (`base` 38) or background (48).
    fn sgr(&self, c: Rgb, base: u8) -> String {
        let (r, g, b) = c.rgb;
        if self.truecolor {
            format!("{base};2;{r};{g};{b}")
        } else {
            format!("{base};5;{}", c.xterm)
        }
    }

    fn paint(&self, text: &str, params: &str) -> String {
        if self.enabled {
            format!("\x1b[{params}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    pub fn good(&self, t: &str) -> String {
        self.paint(t, &self.sgr(GOOD, 38))
    }
    pub fn bad(&self, t: &str) -> String {
        self.paint(t, &format!("1;{}", self.sgr(BAD, 38)))
    }
    pub fn warn(&self, t: &str) -> String {
        self.paint(t, &self.sgr(WARN, 38))
    }
    pub fn dim(&self, t: &str) -> String {
        self.paint(t, "2")
    }
    pub fn strong(&self, t: &str) -> String {
        self.paint(t, "1")
    }
    /// A leader epoch in its colour, so runs of one epoch stand out.
    pub fn epoch(&self, epoch: i32, t: &str) -> String {
        if epoch < 0 {
            return t.to_string();
        }
        self.paint(t, &self.sgr(epoch_colour(epoch), 38))
    }

    /// A picture cell: `t` on its epoch's colour, in black or white, whichever reads better
    /// on it (the 256-colour black and white, which themes do not remap). Plain when colour
    /// is off: the epoch number is in the text anyway.
    pub fn epoch_block(&self, leader_epoch: i32, t: &str) -> String {
        if leader_epoch < 0 {
            return t.to_string();
        }
        let c = epoch_colour(leader_epoch);
        let shown = if self.truecolor { c.rgb } else { xterm_rgb(c.xterm) };
        let on_black = contrast(shown, (0, 0, 0)) >= contrast(shown, (255, 255, 255));
        let text = if on_black { "38;5;16" } else { "38;5;231" };
        self.paint(t, &format!("{};{text}", self.sgr(c, 48)))
    }

    fn cell_colour(&self, c: Rgb) -> Color {
        let (r, g, b) = c.rgb;
        if self.truecolor {
            Color::Rgb { r, g, b }
        } else {
            Color::AnsiValue(c.xterm)
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
            Tone::Good => cell.fg(self.cell_colour(GOOD)),
            Tone::Bad => cell.fg(self.cell_colour(BAD)).add_attribute(Attribute::Bold),
            Tone::Warn => cell.fg(self.cell_colour(WARN)),
            Tone::Dim => cell.add_attribute(Attribute::Dim),
            Tone::Strong => cell.add_attribute(Attribute::Bold),
            Tone::Epoch(e) if e < 0 => cell,
            Tone::Epoch(e) => cell.fg(self.cell_colour(epoch_colour(e))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: (u8, u8, u8) = (255, 255, 255);
    /// A common dark theme's background (VS Code, many terminals).
    const DARK: (u8, u8, u8) = (0x1e, 0x1e, 0x1e);
    const BLACK: (u8, u8, u8) = (0, 0, 0);

    #[test]
    fn every_text_colour_reads_on_light_and_dark_backgrounds_in_24_bit_and_256_colours() {
        for (name, c) in EPOCH_COLOURS.iter().enumerate().map(|(i, c)| (format!("epoch {i}"), *c)).chain([
            ("good".to_string(), GOOD),
            ("warn".to_string(), WARN),
            ("bad".to_string(), BAD),
        ]) {
            for (form, shown) in [("24-bit", c.rgb), ("256-colour", xterm_rgb(c.xterm))] {
                for (bg, on) in [("white", WHITE), ("#1e1e1e", DARK), ("black", BLACK)] {
                    let ratio = contrast(shown, on);
                    assert!(ratio >= 3.0, "{name} ({form} {shown:?}) on {bg}: contrast {ratio:.2} < 3");
                }
            }
            // The 256-colour stand-in is the same colour, near enough.
            let (a, b) = (c.rgb, xterm_rgb(c.xterm));
            let far = [a.0.abs_diff(b.0), a.1.abs_diff(b.1), a.2.abs_diff(b.2)].into_iter().max().unwrap();
            assert!(far <= 40, "{name}: 256-colour {b:?} is far from {a:?}");
        }
    }

    #[test]
    fn epochs_get_distinct_colours_and_blocks_keep_readable_text() {
        for (i, a) in EPOCH_COLOURS.iter().enumerate() {
            for b in &EPOCH_COLOURS[i + 1..] {
                assert_ne!(a.xterm, b.xterm, "two epochs share a 256-colour stand-in");
            }
            for shown in [a.rgb, xterm_rgb(a.xterm)] {
                assert!(contrast(shown, BLACK).max(contrast(shown, WHITE)) >= 4.0, "block text on {shown:?}");
            }
        }
        assert_eq!(epoch_colour(8), epoch_colour(0));
    }

    #[test]
    fn without_truecolor_the_escapes_are_256_colour_and_one_epoch_is_one_colour_everywhere() {
        let p256 = Palette { enabled: true, truecolor: false };
        let p24 = Palette { enabled: true, truecolor: true };
        assert_eq!(p256.epoch(1, "e1"), "\x1b[38;5;31me1\x1b[0m");
        assert_eq!(p24.epoch(1, "e1"), "\x1b[38;2;31;143;191me1\x1b[0m");
        assert!(p256.epoch_block(1, "e1").starts_with("\x1b[48;5;31;"));
        assert!(p24.epoch_block(1, "e1").starts_with("\x1b[48;2;31;143;191;"));
        for p in [p256, p24] {
            for s in [p.good("x"), p.bad("x"), p.warn("x"), p.epoch(3, "x"), p.epoch_block(3, "x")] {
                assert!(!s.contains(";2;") || p.truecolor, "24-bit colour without COLORTERM: {s:?}");
            }
        }
        assert_eq!(epoch_hex(1), "#1f8fbf");
        let off = Palette { enabled: false, truecolor: true };
        assert_eq!(
            (off.epoch(1, "e1"), off.epoch_block(1, "e1"), off.good("ok")),
            ("e1".into(), "e1".into(), "ok".into())
        );
    }
}
