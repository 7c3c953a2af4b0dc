//! Man pages and shell completions, generated from the clap definitions in `cli/` (the one
//! source of the help text; the EXAMPLES and EXIT STATUS sections come from the same
//! `cli::examples` and `cli::exit_codes` that end each `--help`). `man/` and `completions/` are
//! committed; a test regenerates them and fails on any difference.

use crate::cli;
use crate::error::{IoContext, Result};
use std::io::Write;
use std::path::Path;

const FILES: &str = r#".SH FILES
A replica dir is a Kafka log dir:
.TP
\fBmeta.properties\fR
version=1, node.id (the replica id), cluster.id, directory.id.
.TP
\fBreplication-offset-checkpoint\fR, \fBrecovery-point-offset-checkpoint\fR, \fBlog-start-offset-checkpoint\fR
Checkpoints "0\en<count>\en<topic> <partition> <offset>\en...": the HW, the flushed-up-to offset and the log start of each partition.
.TP
\fB.kafka_cleanshutdown\fR
Present only after a clean stop.
.TP
\fB.lock\fR
Locked by every mutating command.
.TP
\fBklog-state.json\fR
klog's own: topic config and the volatile state (role, leader epoch, ISR, follower fetch offsets) that a crash drops.
.TP
\fB<topic>-<partition>/<20-digit base offset>.log\fR
Record batches (magic v2), back to back.
.TP
\fB<topic>-<partition>/*.index\fR, \fB*.timeindex\fR
Offset index (relative offset i32, position i32) and time index (timestamp i64, relative offset i32), big-endian, trimmed.
.TP
\fB<topic>-<partition>/leader-epoch-checkpoint\fR
"0\en<count>\en<epoch> <start offset>\en...".
.TP
\fB<topic>-<partition>/partition.metadata\fR
"version: 0\entopic_id: <uuid>", no trailing newline.
"#;

fn extra_sections(name: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(b".SH \"EXIT STATUS\"\n");
    for (code, what) in cli::exit_codes(name) {
        out.extend_from_slice(format!(".TP\n\\fB{code}\\fR\n{}\n", roff_text(what)).as_bytes());
    }
    out.extend_from_slice(FILES.as_bytes());
    let examples = cli::examples(name);
    if !examples.is_empty() {
        out.extend_from_slice(b".SH EXAMPLES\n");
        for line in examples {
            out.extend_from_slice(b".PP\n.nf\n");
            out.extend_from_slice(roff_text(line).as_bytes());
            out.extend_from_slice(b"\n.fi\n");
        }
    }
}

/// Text as roff shows it literally (backslashes and hyphens escaped).
fn roff_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace('-', "\\-")
}

fn render(cmd: clap::Command, name: &str) -> Result<Vec<u8>> {
    // The examples and exit codes that end `--help` get their own man sections below.
    let man = clap_mangen::Man::new(cmd.after_help(None::<&str>));
    let mut out = Vec::new();
    man.render(&mut out).at("<man page>", "render")?;
    extra_sections(name, &mut out);
    Ok(out)
}

/// Write `klog.1` and `klog-<subcommand>.1` for every visible subcommand into `dir`.
pub fn write_man_pages(dir: &Path) -> Result<Vec<String>> {
    crate::durable::create_dir(dir)?;
    let mut cmd = cli::command();
    cmd.build();
    let mut written = Vec::new();
    let page = render(cmd.clone(), "klog")?;
    crate::durable::write_atomic(&dir.join("klog.1"), &page)?;
    written.push("klog.1".to_string());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
        let name = sub.get_name().to_string();
        let sub = sub.clone().name(format!("klog-{name}"));
        let page = render(sub, &name)?;
        let file = format!("klog-{name}.1");
        crate::durable::write_atomic(&dir.join(&file), &page)?;
        written.push(file);
    }
    Ok(written)
}

/// Write the completion script for `shell` to `out`.
pub fn write_completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<()> {
    let mut cmd = cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "klog", &mut buf);
    out.write_all(&buf).at("<stdout>", "write")
}
