//! The help's tail of every subcommand: two or three examples and its exit codes, one source
//! for `--help` and the man pages.

/// The examples of every subcommand, as a table.
const EXAMPLES: &[(&str, &[&str])] = &[
    ("klog", &[
        "klog demo",
        "klog create /tmp/b --replica-id 2 && klog elect /tmp/b && klog append /tmp/b m1 m2",
        "klog recover /tmp/a --leader /tmp/b --mode kip279 --dry-run",
    ]),
    ("create", &[
        "klog create /tmp/b --replica-id 2",
        "klog create /tmp/b --topic orders --partition 3 --segment-bytes 1048576",
    ]),
    ("elect", &["klog elect /tmp/b --isr /tmp/a /tmp/c", "klog elect /tmp/a --epoch 5 --epoch-entry first-append"]),
    ("alter-isr", &["klog alter-isr /tmp/a --isr /tmp/b", "klog alter-isr /tmp/a"]),
    ("append", &[
        "klog append /tmp/b m1 m2 --key user-7 --header trace=abc",
        "klog append /tmp/b --count 1000000 --value-size 100 --flush",
        "klog append /tmp/b t1 t2 --producer-id 7 --transactional && klog append /tmp/b --producer-id 7 --end-txn abort",
    ]),
    ("dump", &[
        "klog dump /tmp/b --epochs",
        "klog dump /data --topic orders --since 2026-12-07T03:00:00Z --key user-7",
        "klog dump /tmp/b/demo-0/00000000000000000000.index",
    ]),
    ("check", &["klog check /tmp/b", "klog check /var/lib/kafka --partition orders-3 --json"]),
    ("txn", &[
        "klog txn /copies/b1",
        "klog txn /copies/b1 --partition orders-3 --json",
        "klog txn /copies/b1 /copies/b2 /copies/b3 --format kafka",
    ]),
    ("history", &[
        "klog history /var/lib/kafka",
        "klog history /copies/b1 --partition orders-3 --replica /copies/b1 --replica /copies/b2 --json",
    ]),
    ("fetch", &[
        "klog fetch --leader /tmp/b /tmp/a --rounds 3",
        "klog fetch --leader /tmp/b /tmp/a --until-caught-up --flush",
        "klog fetch --leader /tmp/b /tmp/a --rounds 2 --kafka 2.7.2 --explain",
    ]),
    ("flush", &["klog flush /tmp/b", "klog flush /var/lib/kafka --partition orders-3"]),
    ("stop", &["klog stop /tmp/b", "klog stop /var/lib/kafka --partition orders-3"]),
    ("crash", &[
        "klog crash /tmp/a --power-loss",
        "klog crash /tmp/a --flip-byte --seed 42",
        "klog crash /tmp/a --torn-bytes 7 --hw 0 --drop-epoch-checkpoint",
    ]),
    ("recover", &[
        "klog recover /tmp/a",
        "klog recover /tmp/a --leader /tmp/b --mode hw --dry-run",
        "klog recover /tmp/a --leader /tmp/b --mode kip279 --catch-up --json",
    ]),
    ("restore", &["klog crash /copies/b1 --allow-broker-dir-writes", "klog restore /copies/b1.klog-backup-1"]),
    ("diff", &["klog diff /tmp/a /tmp/b", "klog diff /tmp/a /tmp/b --json"]),
    ("remote", &[
        "klog remote /var/kafka/data",
        "klog remote b1/data b2/data b3/data --remote-dir /var/kafka/tiered",
        "klog remote b1/data --json",
    ]),
    ("tier", &[
        "klog create /tmp/a --replica-id 1 --segment-bytes 1024 --remote-dir /tmp/remote",
        "klog tier copy /tmp/a && klog tier retain /tmp/a --local-retention-bytes 2048",
        "klog tier copy /tmp/a --stop-after-files 1 && klog crash /tmp/a",
    ]),
    ("demo", &[
        "klog demo",
        "klog demo kip101-1 --mode hw --predict",
        "klog demo kip101-1 --mode all --capture kip101-1.html",
    ]),
    ("draw", &["klog draw /tmp/a /tmp/b", "klog draw /tmp/a /tmp/b --from 10 --limit 8 --svg ab.svg"]),
    ("explore", &[
        "klog explore",
        "klog explore --mode hw --script /tmp/hw.sh; bash /tmp/hw.sh",
        "klog explore --kafka 4.4 --elr off --min-isr 2 --power-loss --replicas 3",
    ]),
    ("lab", &["klog lab", "klog lab --dir /tmp/klog-lab --port 8080"]),
    ("generate", &["klog generate man /usr/local/share/man/man1", "klog generate completions bash > klog.bash"]),
];

/// Two or three commands for each subcommand's help and man page.
pub fn examples(name: &str) -> &'static [&'static str] {
    EXAMPLES.iter().find(|(n, _)| *n == name).map_or(&[], |(_, e)| e)
}

/// The exit codes of each subcommand and what they mean.
pub fn exit_codes(name: &str) -> &'static [(u8, &'static str)] {
    const ERROR: (u8, &str) = (2, "error (one line on stderr; nothing on disk changed)");
    match name {
        "klog" => {
            &[(0, "success"), (1, "findings (check), divergence (diff), a stuck fetch, a violation (explore)"), ERROR]
        }
        "check" | "txn" => &[(0, "clean"), (1, "findings"), ERROR],
        "diff" => &[(0, "identical up to the shorter log end"), (1, "diverged"), ERROR],
        "remote" => {
            &[(0, "no findings"), (1, "a rejected event, an unfinished copy, a gap or a remote file at odds"), ERROR]
        }
        "fetch" => {
            &[(0, "success"), (1, "stuck: a batch below the follower's LEO, or nothing to cut on OUT_OF_RANGE"), ERROR]
        }
        "explore" => &[(0, "no violation within the bounds"), (1, "a violation was found"), ERROR],
        _ => &[(0, "success"), ERROR],
    }
}

/// The widest an example line is shown (80 columns less the help's indent), so a terminal
/// of 80 never wraps one in the middle of a command.
pub(super) const EXAMPLE_COLUMNS: usize = 78;

/// An example command cut into shell lines of at most `width` characters, at spaces, each
/// line but the last ending in ` \` (or after `&&`, `|` or `;`, where the shell goes on
/// reading anyway), continuation lines indented two: copied whole, it still runs.
pub(super) fn example_lines(example: &str, width: usize) -> Vec<String> {
    let joins = |w: &str| matches!(w, "&&" | "|" | ";") || w.ends_with(';');
    let mut lines = Vec::new();
    let mut words: Vec<&str> = Vec::new();
    let shown = |lines: &Vec<String>, words: &[&str]| {
        format!("{}{}", if lines.is_empty() { "" } else { "  " }, words.join(" "))
    };
    for word in example.split(' ') {
        words.push(word);
        // Room for the ` \` a continued line ends in.
        if words.len() > 1 && shown(&lines, &words).chars().count() + 2 > width {
            let next = words.pop().into_iter().collect::<Vec<_>>();
            // Break after the last `&&` on the line if there is one, else before this word.
            let cut = words.iter().rposition(|w| joins(w)).map_or(words.len(), |i| i + 1);
            let rest: Vec<&str> = words.drain(cut..).chain(next).collect();
            let line = shown(&lines, &words);
            lines.push(if words.last().is_some_and(|w| joins(w)) { line } else { format!("{line} \\") });
            words = rest;
        }
    }
    lines.push(shown(&lines, &words));
    lines
}

/// The end of a command's `--help`: its examples and exit codes.
pub fn help_tail(name: &str) -> String {
    let mut text = String::from("Examples:\n");
    for e in examples(name) {
        for line in example_lines(e, EXAMPLE_COLUMNS) {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text.push_str("\nExit codes:\n");
    for (code, what) in exit_codes(name) {
        text.push_str(&format!("  {code}  {what}\n"));
    }
    text.trim_end().to_string()
}
