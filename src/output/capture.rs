//! `demo --capture FILE.html`: the run as one self-contained HTML filmstrip. One frame per
//! step — the narration before it, the command as typed, its key output (the demo's own text,
//! without colour) and the picture after it (inline SVG; for a recovery, the follower before
//! and after with each record's fate, beside the `--explain` panel) — then a last frame with the
//! per-mode contrast table. Frames are stepped with ←/→ or a slider and addressable as
//! `FILE.html#step=N`. Everything is inline (CSS, SVG, a little script): no network, no
//! fonts, no wall-clock time, so the same run gives the same bytes.

use super::demo::{entries_text, DemoPrinter};
use super::picture::Picture;
use super::svg::{escape, render};
use super::{explain, Settings};
use crate::commands::demo::{DemoEvent, ModeOutcome, Scenario};
use crate::commands::draw::short_name;
use crate::error::Result;
use std::path::{Path, PathBuf};

#[derive(Default, Clone)]
struct Frame {
    heading: String,
    /// The scenario's story, on the first frame of each run.
    story: String,
    say: Vec<String>,
    /// Narration after the last step of a run (it has no next frame to go with).
    after: Vec<String>,
    command: String,
    output: String,
    picture: String,
    explain: String,
}

/// Collects frames from the demo's events; [`Capture::html`] writes the page.
pub struct Capture {
    root: PathBuf,
    lab: Option<PathBuf>,
    title: String,
    heading: String,
    pending_say: Vec<String>,
    pending_story: String,
    frames: Vec<Frame>,
    contrast: String,
}

/// The settings the frames' text is rendered with: no colour, a fixed width.
const TEXT: Settings = Settings { color: false, width: Some(96), progress: false, truecolor: false };

impl Capture {
    pub fn new(root: PathBuf) -> Capture {
        Capture {
            root,
            lab: None,
            title: String::new(),
            heading: String::new(),
            pending_say: Vec::new(),
            pending_story: String::new(),
            frames: Vec::new(),
            contrast: String::new(),
        }
    }

    /// The demo's text for one event (as `demo --plain` prints it, `$LAB` for the lab).
    fn text_of(&self, e: DemoEvent<'_>) -> Result<String> {
        let mut buf = Vec::new();
        DemoPrinter::new(&mut buf, TEXT, self.root.clone()).with_lab(self.lab.clone()).plain(true).event(e)?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    pub fn event(&mut self, e: DemoEvent<'_>) -> Result<()> {
        match e {
            DemoEvent::Scenario(sc, mode) => {
                self.lab = Some(self.root.join(mode.map_or("run", |m| m.name())));
                self.title = format!("klog demo {}", sc.name);
                self.flush_narration();
                self.pending_story = sc.story.to_string();
                self.heading = match mode {
                    Some(m) => format!("{} — mode {} ({})", sc.title, m.name(), m.kafka_versions()),
                    None => sc.title.to_string(),
                };
            }
            DemoEvent::Say(text) => self.pending_say.push(text.to_string()),
            DemoEvent::Command(cmd) => self.frames.push(Frame {
                heading: self.heading.clone(),
                story: std::mem::take(&mut self.pending_story),
                say: std::mem::take(&mut self.pending_say),
                command: format!("$ {cmd}"),
                ..Frame::default()
            }),
            DemoEvent::Created(_) | DemoEvent::Question(_) => {}
            DemoEvent::State(_, drawn) => {
                let svg = render(&Picture::of_draw(drawn), false);
                if let Some(f) = self.frames.last_mut() {
                    if f.picture.is_empty() {
                        f.picture = svg;
                    }
                }
            }
            DemoEvent::Recovered(r, leader_records) => {
                let text = self.text_of(DemoEvent::Recovered(r, leader_records))?;
                let (l, f) = (short_name(Path::new(&r.leader_dir)), short_name(Path::new(&r.follower_dir)));
                let svg = render(&Picture::of_recovery(r, &l, &f, Some(leader_records)), false);
                let panel = explain::write_html(&r.explanation());
                if let Some(frame) = self.frames.last_mut() {
                    frame.output.push_str(&text);
                    frame.picture = svg;
                    frame.explain = panel;
                }
            }
            DemoEvent::Elected(r) => self.with_panel(DemoEvent::Elected(r), explain::write_html(&r.explanation()))?,
            DemoEvent::Appended(n, r) => {
                self.with_panel(DemoEvent::Appended(n, r), explain::write_html(&r.explanation()))?
            }
            DemoEvent::Fetched(n, r) => {
                let panel = r.rounds.last().map(|round| explain::write_html(&round.explanation())).unwrap_or_default();
                self.with_panel(DemoEvent::Fetched(n, r), panel)?
            }
            DemoEvent::Contrast(sc, outcomes) => {
                self.flush_narration();
                self.contrast = contrast_html(sc, outcomes)
            }
            e => {
                let text = self.text_of(e)?;
                if let Some(f) = self.frames.last_mut() {
                    f.output.push_str(&text);
                }
            }
        }
        Ok(())
    }

    /// A step's text on its frame, with the code panel of what ran.
    fn with_panel(&mut self, e: DemoEvent<'_>, panel: String) -> Result<()> {
        let text = self.text_of(e)?;
        if let Some(f) = self.frames.last_mut() {
            f.output.push_str(&text);
            f.explain = panel;
        }
        Ok(())
    }

    /// Narration left after a run's last step goes with that step's frame.
    fn flush_narration(&mut self) {
        let said = std::mem::take(&mut self.pending_say);
        if let Some(f) = self.frames.last_mut() {
            f.after.extend(said);
        }
    }

    /// The whole page.
    pub fn html(&self) -> String {
        let mut all = self.frames.clone();
        if let Some(last) = all.last_mut() {
            last.after.extend(self.pending_say.iter().cloned());
        }
        let mut frames: Vec<String> = all
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let said = |lines: &[String]| -> String {
                    lines.iter().map(|s| format!("<p class=\"say\"># {}</p>", escape(s))).collect()
                };
                let story = if f.story.is_empty() {
                    String::new()
                } else {
                    format!("<p class=\"story\">{}</p>", escape(&f.story))
                };
                let say = story + &said(&f.say);
                let after = said(&f.after);
                let explain = if f.explain.is_empty() { String::new() } else { f.explain.clone() };
                format!(
                    "<section class=\"frame\" id=\"step-{n}\" data-step=\"{n}\"><h2>{heading}</h2>{say}\
                     <pre class=\"cmd\">{cmd}</pre><div class=\"row\"><div class=\"pic\">{pic}</div>{explain}</div>\
                     <pre class=\"out\">{out}</pre>{after}</section>\n",
                    n = i + 1,
                    heading = escape(&f.heading),
                    cmd = escape(&f.command),
                    pic = f.picture,
                    out = escape(f.output.trim_end()),
                )
            })
            .collect();
        if !self.contrast.is_empty() {
            let n = frames.len() + 1;
            frames.push(format!(
                "<section class=\"frame\" id=\"step-{n}\" data-step=\"{n}\"><h2>What each truncation mode did</h2>{}</section>\n",
                self.contrast
            ));
        }
        let count = frames.len();
        format!(
            "<!DOCTYPE html>\n{marker}\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\n\
             <meta name=\"viewport\" content=\"width=device-width\">\n<style>{STYLE}</style></head>\n<body>\n\
             <header><h1>{title}</h1><div class=\"controls\"><button id=\"prev\" title=\"previous (←)\">←</button>\
             <input id=\"slider\" type=\"range\" min=\"1\" max=\"{count}\" value=\"1\" aria-label=\"step\">\
             <button id=\"next\" title=\"next (→)\">→</button> <span id=\"pos\">1 / {count}</span></div></header>\n\
             <main>\n{frames}</main>\n<script>{SCRIPT}</script>\n</body></html>\n",
            title = escape(&self.title),
            frames = frames.concat(),
            marker = crate::durable::output::OutputKind::Html.marker(),
        )
    }
}

fn contrast_html(sc: &Scenario, outcomes: &[ModeOutcome]) -> String {
    let mut s = format!(
        "<p>{}</p><table class=\"contrast\"><tr><th>mode</th><th>a's log</th><th>b's log</th><th>acked and lost</th>\
         <th>diverged</th></tr>",
        escape(sc.title)
    );
    for o in outcomes {
        let log_of =
            |name: &str| o.finals.iter().find(|s| s.name == name).map_or("-".to_string(), |s| entries_text(&s.entries));
        let lost = if o.acked_lost.is_empty() {
            "<td class=\"good\">none</td>".to_string()
        } else {
            format!(
                "<td class=\"bad\">{}</td>",
                escape(
                    &o.acked_lost
                        .iter()
                        .map(|e| format!("{} (offset {})", e.value, e.offset))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            )
        };
        let diverged = match o.first_divergent_offset {
            Some(off) => format!("<td class=\"bad\">at offset {off}</td>"),
            None => "<td class=\"good\">no, logs agree</td>".into(),
        };
        let mode = o.mode.map_or("-".to_string(), |m| format!("{} ({})", m.name(), m.kafka_versions()));
        s.push_str(&format!(
            "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td>{lost}{diverged}</tr>",
            escape(&mode),
            escape(&log_of("a")),
            escape(&log_of("b"))
        ));
    }
    s.push_str("</table>");
    s
}

const STYLE: &str = "body{font-family:sans-serif;margin:0;color:#111;background:#fff}\
header{position:sticky;top:0;background:#f4f4f4;border-bottom:1px solid #ccc;padding:6px 14px}\
h1{font-size:18px;margin:4px 0}h2{font-size:15px;margin:6px 0}\
.controls{display:flex;align-items:center;gap:8px}#slider{width:50%}\
button{font-size:16px;padding:2px 12px}main{padding:8px 14px}\
.frame{display:none}.frame.on{display:block}\
.say{color:#7a5200;margin:4px 0}.story{margin:4px 0;max-width:80ch}\
.pic svg{max-width:100%;height:auto}.cmd{font-weight:bold;background:#eef;padding:4px 8px;margin:6px 0}\
.row{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}.pic{flex:none}.explain{flex:0 1 auto}\
.out{font-size:12px;background:#fafafa;border:1px solid #ddd;padding:6px;overflow-x:auto}\
.explain pre{font-size:12px;margin:4px 0;padding:6px;border:1px solid #ccc;background:#fffbe8}\
.explain b{background:#ffe08a}.explain .src,.explain .note{font-size:12px;color:#444;max-width:60ch}\
table.contrast{border-collapse:collapse;font-size:13px}\
.contrast td,.contrast th{border:1px solid #999;padding:4px 8px;text-align:left}\
.good{color:#006b3c}.bad{color:#b00;font-weight:bold}";

const SCRIPT: &str = "(function(){var f=document.querySelectorAll('.frame'),s=document.getElementById('slider'),\
p=document.getElementById('pos'),n=f.length,cur=0;\
function show(i,push){i=Math.max(1,Math.min(n,i|0||1));cur=i;\
for(var k=0;k<n;k++)f[k].classList.toggle('on',k===i-1);s.value=i;p.textContent=i+' / '+n;\
if(push&&history.replaceState)history.replaceState(null,'','#step='+i);}\
function fromHash(){var m=/step=(\\d+)/.exec(location.hash);show(m?+m[1]:1,false);}\
document.getElementById('prev').onclick=function(){show(cur-1,true)};\
document.getElementById('next').onclick=function(){show(cur+1,true)};\
s.oninput=function(){show(+s.value,true)};\
document.addEventListener('keydown',function(e){if(e.target===s)return;if(e.key==='ArrowLeft')show(cur-1,true);\
else if(e.key==='ArrowRight')show(cur+1,true);});\
window.addEventListener('hashchange',fromHash);fromHash();})();";
