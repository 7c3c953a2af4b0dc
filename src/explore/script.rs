//! A history as klog commands: the command line of each lab action, and the whole runnable
//! script (`set -euo pipefail`, replicas in a temp dir, the commands, then the `recover` whose
//! report shows the violation). Pure text; nothing is run here.

use super::model::{Action, Config, Controller, State};
use super::witness::Witness;
use crate::replication::release::Rules;

/// The replica's name in commands and narration: a, b, c.
pub fn replica_name(i: u8) -> char {
    (b'a' + i) as char
}

/// The node.id a script gives replica `i`.
pub fn replica_id(i: u8) -> u8 {
    i + 1
}

/// The value of the `k`-th appended record.
pub fn value_name(k: u8) -> String {
    format!("m{k}")
}

/// Timestamp of every appended record, so a script's bytes are the same on every run.
pub const TIMESTAMP_MS: i64 = 1_000;

fn dir(i: u8) -> String {
    format!("\"$LAB/{}\"", replica_name(i))
}

/// The flag naming the rules: `--mode M` for the release a mode stands for, else `--kafka X`.
pub fn rules_flag(rules: &Rules) -> String {
    if *rules == Rules::of_mode(rules.truncation) {
        format!("--mode {}", rules.truncation.name())
    } else {
        format!("--kafka {}", rules.kafka_arg())
    }
}

/// The flag naming the explorer's fetch ([`super::model::fetch_rules`]): the mode's for an era
/// before 2.8, else 2.7.2's, the last release whose fetch sends no epoch (a fetch round reads
/// no other rule that changed after it).
pub fn fetch_flag(rules: &Rules) -> String {
    if rules.truncation_on_fetch {
        "--kafka 2.7.2".to_string()
    } else {
        rules_flag(rules)
    }
}

/// The command line of one action, with replicas as `"$LAB/x"`.
pub fn command(cfg: &Config, action: &Action) -> String {
    let fencing = if cfg.fencing { "" } else { " --no-fencing" };
    match *action {
        Action::Elect { replica, leader_epoch, isr, .. } => {
            let isr = isr_flag(cfg, replica, isr);
            // Up to 2.0.0 a new leader's epoch entry comes with its first append (KAFKA-7415).
            let entry = if cfg.rules.epoch_entry_on_election { "" } else { " --epoch-entry first-append" };
            format!("klog elect {} --epoch {leader_epoch}{isr}{entry}", dir(replica))
        }
        Action::Append { replica, value } => {
            format!("klog append {} {} --timestamp {TIMESTAMP_MS}", dir(replica), value_name(value))
        }
        Action::Fetch { leader, follower } => {
            // A tiered lab refuses a release before 3.6: its fetch runs 4.4's rules, the same
            // round as 2.7.2's for the followers the explorer lets fetch (told and truncated).
            let rules = if cfg.tiered { rules_flag(&cfg.rules) } else { fetch_flag(&cfg.rules) };
            format!("klog fetch --leader {} {}{fencing} {rules}", dir(leader), dir(follower))
        }
        Action::Crash { replica, power_loss, hw } => format!(
            "klog crash {}{}{}",
            dir(replica),
            if power_loss { " --power-loss" } else { "" },
            hw.map_or(String::new(), |h| format!(" --hw {h}"))
        ),
        Action::CheckpointHw { replica } => {
            format!(
                "# {}'s broker checkpoints its HW (Kafka: every 5 s; klog writes it at every change)",
                replica_name(replica)
            )
        }
        Action::Flush { replica } => format!("klog flush {}", dir(replica)),
        Action::Restart { replica } => format!("klog recover {}", dir(replica)),
        Action::Recover { follower, leader } => {
            format!("klog recover {} --leader {} {}{fencing}", dir(follower), dir(leader), rules_flag(&cfg.rules))
        }
        Action::AlterIsr { leader, isr } => format!("klog alter-isr {}{}", dir(leader), isr_flag(cfg, leader, isr)),
        Action::Announce { replica, leader_epoch, isr } => format!(
            "# the controller elects {} at epoch {leader_epoch} (ISR {}); its LeaderAndIsr has not reached {} yet",
            replica_name(replica),
            names(cfg, isr),
            replica_name(replica)
        ),
        Action::Upload { replica } => format!("klog tier copy {}", dir(replica)),
        Action::LocalDelete { replica } => format!("klog tier retain {} --local-retention-bytes 1", dir(replica)),
        Action::RecoverAhead { follower, leader, leader_epoch } => format!(
            "klog recover {} --leader {} --leader-epoch {leader_epoch} --told-first {}{fencing}",
            dir(follower),
            dir(leader),
            rules_flag(&cfg.rules)
        ),
    }
}

/// The members of `isr` other than `leader`, in replica order.
pub fn followers(cfg: &Config, leader: u8, isr: u8) -> impl Iterator<Item = u8> {
    (0..cfg.replicas as u8).filter(move |&i| i != leader && isr & (1 << i) != 0)
}

/// ` --isr x y` for the members of `isr` other than `leader` (nothing for the leader alone).
fn isr_flag(cfg: &Config, leader: u8, isr: u8) -> String {
    let members: Vec<String> = followers(cfg, leader, isr).map(dir).collect();
    if members.is_empty() {
        String::new()
    } else {
        format!(" --isr {}", members.join(" "))
    }
}

fn names(cfg: &Config, mask: u8) -> String {
    let v: Vec<String> =
        (0..cfg.replicas as u8).filter(|&i| mask & (1 << i) != 0).map(|i| replica_name(i).to_string()).collect();
    format!("[{}]", v.join(", "))
}

/// What the KRaft controller did with `action` (`before` → `after`), as lines after its command:
/// a comment with the partition's record, then `klog elect` for a leader it elected on a crash
/// or a restart, or `klog alter-isr` for a leader that learns a smaller ISR. Nothing with the
/// free controller.
pub fn controller_lines(cfg: &Config, before: &State, after: &State, action: &Action) -> Vec<String> {
    if let Action::Fetch { follower, .. } = *action {
        // 0.11.0 – 2.0.0: the follower's broker exited (FatalExitError); klog's fetch says so
        // and leaves it running, so the script stops it as the broker did.
        if before.nodes[follower as usize].is_running() && !after.nodes[follower as usize].is_running() {
            let crash = Action::Crash { replica: follower, power_loss: false, hw: None };
            let mut lines = vec![
                format!(
                    "# {}'s broker stops: its log ends past the leader's and unclean.leader.election.enable is false",
                    replica_name(follower)
                ),
                command(cfg, &crash),
            ];
            lines.extend(controller_lines(cfg, before, after, &crash));
            return lines;
        }
    }
    if cfg.controller == Controller::Free {
        return Vec::new();
    }
    let event = match *action {
        Action::Elect { unclean: false, .. } => "the topic is created".to_string(),
        Action::Elect { .. } => "Admin.electLeaders(UNCLEAN)".to_string(),
        Action::Crash { replica, .. } => format!("{} is fenced", replica_name(replica)),
        Action::Restart { replica } => {
            format!("{} registers after an unclean shutdown and is unfenced", replica_name(replica))
        }
        Action::AlterIsr { .. } => "AlterPartition accepted".to_string(),
        _ => return Vec::new(),
    };
    let leader = after.latest_leader.map_or("none".to_string(), |l| replica_name(l).to_string());
    let mut lines = vec![format!(
        "# the controller: {event}; leader {leader}, ISR {}, ELR {}, last known leader {}",
        names(cfg, after.isr),
        names(cfg, after.elr),
        names(cfg, after.last_known_elr)
    )];
    if !matches!(action, Action::Crash { .. } | Action::Restart { .. }) {
        return lines;
    }
    match after.latest_leader {
        // A fenced last known leader (Kafka 4.0.x) is recorded, not started: nothing to run.
        Some(l) if before.latest_leader != Some(l) && !after.nodes[l as usize].is_running() => {
            lines.push(format!("# {} is down: no broker leads until it registers again", replica_name(l)));
        }
        Some(l) if before.latest_leader != Some(l) => {
            let elect = Action::Elect {
                replica: l,
                leader_epoch: after.epochs_issued as i8 - 1,
                isr: after.isr,
                unclean: false,
            };
            lines.push(command(cfg, &elect));
        }
        Some(l) if before.isr != after.isr && after.nodes[l as usize].leader_epoch().is_some() => {
            lines.push(command(cfg, &Action::AlterIsr { leader: l, isr: after.isr }));
        }
        _ => {}
    }
    lines
}

/// The showing recovery's command line (all records in the report's table).
pub fn witness_command(cfg: &Config, w: &Witness) -> String {
    let fencing = if cfg.fencing { "" } else { " --no-fencing" };
    format!(
        "klog recover {} --leader {} {}{fencing} --context 100",
        dir(w.follower),
        dir(w.leader),
        rules_flag(&cfg.rules)
    )
}

/// The whole script. `title` lines become comments at the top.
pub fn script(cfg: &Config, actions: &[Action], witness: &Witness, title: &[String]) -> String {
    let mut s = script_head(
        title,
        "# Needs klog on PATH. Each step is echoed to stderr; the last command's report shows the\n\
         # violation (set KLOG_EXPLORE_JSON=1 for it as JSON).\n",
    );
    push_creates(&mut s, cfg, "");
    let relaxed = Config { max_records: cfg.max_records + 1, max_epochs: cfg.max_epochs + 1, ..*cfg };
    let mut state = State::initial(cfg.replicas);
    for a in actions.iter().chain(&witness.actions) {
        let after = state.apply(&relaxed, *a).0;
        push_action_lines(&mut s, cfg, &state, &after, a);
        state = after;
    }
    s.push_str(&format!("echo '$ {}' >&2\n", witness_command(cfg, witness).replace('"', "")));
    s.push_str(&format!("{} ${{KLOG_EXPLORE_JSON:+--json}}\n", witness_command(cfg, witness)));
    s
}

/// A script's first lines: the shebang, the marker, `title` as comments, `about` (comment
/// lines saying what the last command shows), and the lab's set-up with its `step` function.
fn script_head(title: &[String], about: &str) -> String {
    let mut s = String::from("#!/usr/bin/env bash\n");
    s.push_str(crate::durable::output::OutputKind::Script.marker());
    s.push('\n');
    for line in title {
        s.push_str(&format!("# {line}\n"));
    }
    s.push_str(about);
    s.push_str(
        "set -euo pipefail\n\
         LAB=$(mktemp -d)\n\
         trap 'rm -rf \"$LAB\"' EXIT\n\
         step() { echo \"\\$ ${*//$LAB/\\$LAB}\" >&2; \"$@\" >/dev/null; }\n",
    );
    s
}

/// One `klog create` step per replica, with the topic's min ISR and `extra` flags.
fn push_creates(s: &mut String, cfg: &Config, extra: &str) {
    let min_isr = if cfg.min_isr > 1 { format!(" --min-insync-replicas {}", cfg.min_isr) } else { String::new() };
    for i in 0..cfg.replicas as u8 {
        s.push_str(&format!("step klog create {} --replica-id {}{min_isr}{extra}\n", dir(i), replica_id(i)));
    }
}

/// The script lines of action `a` taken from `before` to `after`: its command as a `step`, and
/// the controller's lines; a comment is a step of the broker's (or the controller's) that no
/// klog command takes.
fn push_action_lines(s: &mut String, cfg: &Config, before: &State, after: &State, a: &Action) {
    for c in std::iter::once(command(cfg, a)).chain(controller_lines(cfg, before, after, a)) {
        if c.starts_with('#') {
            s.push_str(&format!("{c}\n"));
        } else {
            s.push_str(&format!("step {c}\n"));
        }
    }
}

/// The remote storage dir of a tiered script's lab.
const REMOTE_DIR: &str = "\"$LAB/remote\"";

/// A tiered history's script (`--tiered`): tiered labs with one record a segment
/// (`--segment-bytes 100`, as the real walks' topics), the commands, then `klog remote` over
/// every replica, whose forecast for the last leader shows the loss (exit 1).
pub fn tiered_script(cfg: &Config, actions: &[Action], title: &[String]) -> String {
    let mut s = script_head(
        title,
        "# Needs klog on PATH. Each step is echoed to stderr; the last command, `klog remote`, shows\n\
         # what the last leader serves from both tiers (set KLOG_EXPLORE_JSON=1 for it as JSON).\n",
    );
    push_creates(&mut s, cfg, &format!(" --remote-dir {REMOTE_DIR} --segment-bytes 100"));
    let mut state = State::initial(cfg.replicas);
    for a in actions {
        let after = state.apply(cfg, *a).0;
        push_action_lines(&mut s, cfg, &state, &after, a);
        state = after;
    }
    let dirs: Vec<String> = (0..cfg.replicas as u8).map(dir).collect();
    // The model has no remote retention: nor has the forecast (the records carry 1970's time).
    let remote = format!("klog remote {} --remote-dir {REMOTE_DIR} --retention-ms -1", dirs.join(" "));
    s.push_str(&format!("echo '$ {}' >&2\n", remote.replace('"', "")));
    s.push_str(&format!("{remote} ${{KLOG_EXPLORE_JSON:+--json}}\n"));
    s
}
