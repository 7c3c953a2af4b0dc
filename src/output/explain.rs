//! Rendering of `recover --explain`: the chosen era's truncation procedure as pseudo-code,
//! the lines that ran marked with `◀` and the values they saw (the panel also appears beside
//! the picture in `demo --capture` frames, as HTML). The procedure and the marking are
//! `replication::explain`'s; this file only lays them out.

use super::Settings;
use crate::error::{IoContext, Result};
use crate::replication::explain::Explanation;
use std::io::Write;

/// The code column's width: values start after it.
const CODE_WIDTH: usize = 54;

/// One line as text: `    truncate_to(hw)        ◀ hw = 1` (no colour).
pub fn line_text(code: &str, depth: usize, ran: bool, values: &[String]) -> String {
    let code = format!("{}{code}", "    ".repeat(depth));
    if !ran {
        return code;
    }
    let pad = CODE_WIDTH.saturating_sub(code.chars().count()).max(1);
    if values.is_empty() {
        format!("{code}{}◀", " ".repeat(pad))
    } else {
        format!("{code}{}◀ {}", " ".repeat(pad), values.join("; "))
    }
}

pub fn write_text(out: &mut dyn Write, e: &Explanation, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    writeln!(out, "{} {} — {}", p.strong("explain:"), p.strong(e.title), e.source).at("<stdout>", "write")?;
    let width = settings.width.unwrap_or(usize::MAX);
    for l in &e.lines {
        let text = line_text(l.code, l.depth, l.ran, &l.values);
        let code = format!("{}{}", "    ".repeat(l.depth), l.code);
        if 2 + code.chars().count() > width {
            // Code wider than the terminal (Kafka's own lines in the LSO panel) wraps, whole
            // words, its continuation lines indented; its `◀ values` go on a line of their own.
            for (i, piece) in super::fit::wrap_line(&code, width.saturating_sub(6).max(20)).iter().enumerate() {
                let piece = if i == 0 { piece.clone() } else { format!("    {piece}") };
                let shown = if l.ran { p.strong(&piece) } else { p.dim(&piece) };
                writeln!(out, "  {shown}").at("<stdout>", "write")?;
            }
            if l.ran {
                let value = format!("{}◀ {}", " ".repeat(4 * l.depth + 4), l.values.join("; "));
                for piece in super::fit::wrap_line(&value, width.saturating_sub(2)) {
                    writeln!(out, "  {}", p.strong(&piece)).at("<stdout>", "write")?;
                }
            }
            continue;
        }
        // A line too wide for the terminal keeps its code whole and puts `◀ values` on the next
        // line, in the value column, rather than letting the values wrap under the code.
        if l.ran && !l.values.is_empty() && 2 + text.chars().count() > width {
            let code = format!("{}{}", "    ".repeat(l.depth), l.code);
            writeln!(out, "  {}", p.strong(&code)).at("<stdout>", "write")?;
            let values = l.values.join("; ");
            // In the value column, or as far right as the values still fit.
            let pad = CODE_WIDTH.min(width.saturating_sub(4 + values.chars().count()));
            let value = format!("{}◀ {values}", " ".repeat(pad));
            writeln!(out, "  {}", p.strong(&value)).at("<stdout>", "write")?;
            continue;
        }
        let shown = if l.ran { p.strong(&text) } else { p.dim(&text) };
        writeln!(out, "  {shown}").at("<stdout>", "write")?;
    }
    writeln!(out, "  {}", p.dim("◀ ran, with the values it saw")).at("<stdout>", "write")?;
    for n in &e.notes {
        writeln!(out, "  {n}").at("<stdout>", "write")?;
    }
    Ok(())
}

/// The panel as HTML (for the capture): a `<pre>` with the lines that ran in `<b>`.
pub fn write_html(e: &Explanation) -> String {
    let mut s = format!(
        "<div class=\"explain\"><div class=\"src\">{} — {}</div><pre>",
        super::svg::escape(e.title),
        super::svg::escape(&e.source)
    );
    for l in &e.lines {
        let text = super::svg::escape(&line_text(l.code, l.depth, l.ran, &l.values));
        if l.ran {
            s.push_str(&format!("<b>{text}</b>\n"));
        } else {
            s.push_str(&format!("{text}\n"));
        }
    }
    s.push_str("</pre>");
    for n in &e.notes {
        s.push_str(&format!("<div class=\"note\">{}</div>", super::svg::escape(n)));
    }
    s.push_str("</div>");
    s
}
