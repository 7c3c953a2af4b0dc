//! Man pages and shell completions, generated from the clap definitions in `cli.rs` (the one
//! source of the help text). `man/` and `completions/` are committed; a test regenerates them
//! and fails on any difference.

use crate::cli::Cli;
use crate::error::{IoContext, Result};
use clap::CommandFactory;
use std::io::Write;
use std::path::Path;

const EXIT_STATUS: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
Success.
.TP
\fB1\fR
The command ran and found what it looks for: findings in \fBcheck\fR, divergence in \fBdiff\fR, a stuck \fBfetch\fR.
.TP
\fB2\fR
An error: one line \fIklog: error: <path>: <what>\fR on standard error, naming the byte position for bad bytes. Nothing on disk was changed.
"#;

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

fn examples(name: &str) -> &'static str {
    match name {
        "klog" => "klog demo\nklog create /tmp/b --replica-id 2\nklog elect /tmp/b --isr /tmp/a\nklog append /tmp/b m1 m2\nklog fetch --leader /tmp/b /tmp/a --rounds 3\nklog recover /tmp/a --leader /tmp/b --mode kip279 --dry-run",
        "create" => "klog create /tmp/b --topic orders --partition 3 --replica-id 2 --segment-bytes 1048576",
        "elect" => "klog elect /tmp/b --isr /tmp/a /tmp/c\nklog elect /tmp/a --epoch 5 --epoch-entry first-append",
        "append" => "klog append /tmp/b m1 m2 --key user-7 --header trace=abc\nklog append /tmp/b --count 1000000 --value-size 100 --flush\nprintf 'x\\ny\\n' | klog append /tmp/b --stdin",
        "dump" => "klog dump /tmp/b\nklog dump /tmp/b --epochs\nklog dump /var/lib/kafka --partition orders-3 --json --from 1000 --limit 10\nklog dump /tmp/b/demo-0/00000000000000000000.index",
        "check" => "klog check /tmp/b\nklog check /var/lib/kafka --partition orders-3 --json",
        "fetch" => "klog fetch --leader /tmp/b /tmp/a --rounds 3\nklog fetch --leader /tmp/b /tmp/a --until-caught-up --flush",
        "flush" => "klog flush /tmp/b",
        "stop" => "klog stop /tmp/b",
        "crash" => "klog crash /tmp/a --power-loss\nklog crash /tmp/a --torn-bytes 7\nklog crash /tmp/a --flip-byte --seed 42\nklog crash /tmp/a --hw 0 --drop-epoch-checkpoint",
        "recover" => "klog recover /tmp/a\nklog recover /tmp/a --leader /tmp/b --mode hw --dry-run\nklog recover /tmp/a --leader /tmp/b --mode kip279 --catch-up --json",
        "diff" => "klog diff /tmp/a /tmp/b\nklog diff /tmp/a /tmp/b --json",
        "demo" => "klog demo\nklog demo watch\nklog demo kip279 --mode all --dir /tmp/lab",
        _ => "",
    }
}

fn extra_sections(name: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(EXIT_STATUS.as_bytes());
    out.extend_from_slice(FILES.as_bytes());
    let ex = examples(name);
    if !ex.is_empty() {
        out.extend_from_slice(b".SH EXAMPLES\n");
        for line in ex.lines() {
            out.extend_from_slice(b".PP\n.nf\n");
            out.extend_from_slice(line.replace('\\', "\\\\").replace('-', "\\-").as_bytes());
            out.extend_from_slice(b"\n.fi\n");
        }
    }
}

fn render(cmd: clap::Command, name: &str) -> Result<Vec<u8>> {
    let man = clap_mangen::Man::new(cmd);
    let mut out = Vec::new();
    man.render(&mut out).at("<man page>", "render")?;
    extra_sections(name, &mut out);
    Ok(out)
}

/// Write `klog.1` and `klog-<subcommand>.1` for every visible subcommand into `dir`.
pub fn write_man_pages(dir: &Path) -> Result<Vec<String>> {
    crate::durable::create_dir(dir)?;
    let mut cmd = Cli::command();
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
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "klog", &mut buf);
    out.write_all(&buf).at("<stdout>", "write")
}
