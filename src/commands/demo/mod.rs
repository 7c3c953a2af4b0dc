//! `klog demo`: the built-in scenarios of [the model](crate::replication), run step by step on real replica
//! dirs through the same command functions the CLI uses. Each step is emitted as the command a
//! person would type plus its report; after each step the state of every replica; at the end,
//! per truncation mode, what was kept, lost and left diverged. Rendering is in `output::demo`.

pub mod lso_code;
pub mod stuck_lso;
pub mod tiers;

use super::append::{AppendReport, AppendRequest, Values};
use super::draw::{self, DrawReport};
use super::elect::{ElectReport, ElectRequest, EpochEntryMode};
use super::fetch::{FetchReport, FetchRequest};
use super::recover::{FollowerRecoverReport, RecoverReport, RecoverRequest};
use crate::error::{Error, Result};
use crate::replica::{Replica, ReplicaRole};
use crate::replication::diff::{diff_logs, RecordCursor};
use crate::replication::fetch::DEFAULT_FETCH_MAX_BYTES;
use crate::replication::truncation::{TruncationMode, TruncationReason};
use std::path::{Path, PathBuf};

/// One step of a scenario, on replicas named by a single letter.
#[derive(Debug, Clone)]
pub enum Step {
    Say(&'static str),
    /// Narration after a step whose outcome differs by era: `hw` in an hw run, `epochs` in a
    /// kip101 or kip279 run (one run never tells what another era does before it is asked).
    SayByEra {
        hw: &'static str,
        epochs: &'static str,
    },
    Create {
        replica: &'static str,
        id: i32,
    },
    Elect {
        replica: &'static str,
        epoch: i32,
        isr: &'static [&'static str],
    },
    Append {
        replica: &'static str,
        values: &'static [&'static str],
        timestamp: i64,
        flush: bool,
    },
    Fetch {
        leader: &'static str,
        follower: &'static str,
        rounds: u64,
        flush: bool,
    },
    Crash {
        replica: &'static str,
        power_loss: bool,
        /// `crash --hw N`: the value left in the HW checkpoint.
        hw: Option<i64>,
    },
    /// Restart `follower` against `leader` with the run's truncation mode.
    Recover {
        follower: &'static str,
        leader: &'static str,
    },
    /// `append --producer-id ID --producer-epoch E --transactional`: a transactional producer's
    /// batch (its sequence the one its state expects next).
    TxnAppend {
        replica: &'static str,
        values: &'static [&'static str],
        producer_id: i64,
        producer_epoch: i16,
        timestamp: i64,
    },
    /// `append --end-txn`: the marker a transaction coordinator writes (`WriteTxnMarkers`).
    EndTxn {
        replica: &'static str,
        producer_id: i64,
        producer_epoch: i16,
        coordinator_epoch: i32,
        commit: bool,
        timestamp: i64,
    },
    /// `kafka-transactions.sh abort --start-offset N` for the transaction holding the LSO, as
    /// the broker carries it out: the ABORT marker with the producer's epoch and coordinator
    /// epoch (0 when it has none), written by `append --end-txn abort`.
    AdminAbort {
        replica: &'static str,
        timestamp: i64,
    },
    /// `klog txn`: the replica's LSO, HW and open transactions.
    Txn {
        replica: &'static str,
    },
    /// `create --segment-bytes N --remote-dir $LAB/remote`: a replica of a tiered lab (its
    /// topic with `remote.storage.enable=true`, the lab's LocalTieredStorage dir beside it).
    CreateTiered {
        replica: &'static str,
        id: i32,
        segment_bytes: u64,
    },
    /// `alter-isr DIR --isr ...`: the leader's ISR changes without a new epoch.
    AlterIsr {
        replica: &'static str,
        isr: &'static [&'static str],
    },
    /// `tier copy`: one run of the leader's copy task (closed segments below the LSO).
    TierCopy {
        replica: &'static str,
    },
    /// `tier retain --local-retention-bytes 0`: local segments below the highest remote offset go.
    TierRetain {
        replica: &'static str,
    },
    /// `klog remote a b --remote-dir $LAB/remote`: the remote table and what each broker does
    /// if it leads (lineage, salvage).
    Remote,
}

/// A built-in scenario.
pub struct Scenario {
    pub name: &'static str,
    pub title: &'static str,
    pub story: &'static str,
    /// Whether the truncation mode matters (every built-in scenario has a recovery).
    pub uses_mode: bool,
    pub steps: Vec<Step>,
}

impl Scenario {
    /// The klog commands one play of the scenario runs (its narration left out).
    pub fn command_count(&self) -> usize {
        self.steps.iter().filter(|s| !matches!(s, Step::Say(_) | Step::SayByEra { .. })).count()
    }
}

/// `segment.bytes` of the tiers scene: each one-record batch rolls a new segment.
pub const TIERS_SEGMENT_BYTES: u64 = 100;

/// The tiers scene's first timestamp, 2100-01-01T00:00:00Z: retention by time never applies.
pub const TIERS_T0: i64 = 4_102_444_800_000;

pub const SCENARIO_NAMES: [&str; 6] = ["watch", "kip101-1", "kip101-2", "kip279", "stuck-lso", "tiers"];

pub fn scenario(name: &str) -> Option<Scenario> {
    Some(match name {
        "watch" => watch_scenario(),
        "kip101-1" => kip101_scenario_1(),
        "kip101-2" => kip101_scenario_2(),
        "kip279" => kip279_scenario(),
        "stuck-lso" => stuck_lso_scenario(),
        "tiers" => tiers_scenario(),
        _ => return None,
    })
}

/// The Watch: a follower restarts with a stale HW, then the leader fails.
fn watch_scenario() -> Scenario {
    use Step::*;
    Scenario {
        name: "watch",
        title: "Watch: a follower restarts, then the leader fails",
        // The story sets the scene and never tells an outcome: every outcome is a question
        // of `--predict`, answered after it is asked.
        story: "B leads at epoch 1 with A in the ISR and takes m1 and m2. A fetches twice, crashes before a \
                third fetch and restarts as B's follower; then B fails and A takes over at epoch 2.",
        uses_mode: true,
        steps: vec![
            Create { replica: "a", id: 1 },
            Create { replica: "b", id: 2 },
            Elect { replica: "b", epoch: 1, isr: &["a"] },
            Append { replica: "b", values: &["m1", "m2"], timestamp: 1000, flush: false },
            // Each fetch is announced before it runs and explained after, so that `--predict`
            // asks before the answer is told.
            Say("Fetch 1: A fetches from its log end, offset 0."),
            Fetch { leader: "b", follower: "a", rounds: 1, flush: false },
            Say("A copied both records (LEO 2), but the response carried the HW B read before it recorded \
                 A's fetch: 0."),
            Say("Fetch 2: A fetches from offset 2."),
            Fetch { leader: "b", follower: "a", rounds: 1, flush: false },
            Say("B recorded A's fetch offset 2 and moved its HW to 2: m1 and m2 are acknowledged. It answered \
                 with the HW it read first, 0: A learns HW 2 only in a third fetch, one round trip behind B."),
            Say("A's HW is 0 while B's is 2. A crashes now, before that third fetch: its HW checkpoint says 0 \
                 (at restart a HW can be arbitrarily stale; `crash --hw N` leaves any value there)."),
            Crash { replica: "a", power_loss: false, hw: Some(0) },
            Say("A restarts as B's follower."),
            Recover { follower: "a", leader: "b" },
            SayByEra {
                hw: "A cut its log at its own HW, 0: m1 and m2 went, to be fetched again (B still holds them).",
                epochs: "A asked B where its epoch 1 ends (2) and kept m1 and m2: its HW played no part.",
            },
            Say("B fails before A fetches again; A is elected at epoch 2 and takes m4."),
            Crash { replica: "b", power_loss: false, hw: None },
            Elect { replica: "a", epoch: 2, isr: &[] },
            Append { replica: "a", values: &["m4"], timestamp: 2000, flush: false },
            Say("B restarts as A's follower and fetches."),
            Recover { follower: "b", leader: "a" },
            Fetch { leader: "a", follower: "b", rounds: 3, flush: false },
            SayByEra {
                hw: "A's log no longer held m1 and m2 when it was elected: they were acknowledged and are lost.",
                epochs: "Both logs end 0:(1,m1) 1:(1,m2) 2:(2,m4): nothing acknowledged was lost.",
            },
        ],
    }
}

/// KIP-101's first scenario: high-watermark truncation, then an immediate election.
fn kip101_scenario_1() -> Scenario {
    use Step::*;
    Scenario {
        name: "kip101-1",
        title: "KIP-101 scenario 1: high-watermark truncation, then an immediate election",
        story: "B leads at epoch 0 with A in the ISR and takes m1, then m2, A fetching after each. A restarts, \
                then B dies and A becomes the leader.",
        uses_mode: true,
        steps: vec![
            Create { replica: "a", id: 1 },
            Create { replica: "b", id: 2 },
            Elect { replica: "b", epoch: 0, isr: &["a"] },
            Append { replica: "b", values: &["m1"], timestamp: 1000, flush: false },
            Fetch { leader: "b", follower: "a", rounds: 3, flush: false },
            Append { replica: "b", values: &["m2"], timestamp: 2000, flush: false },
            Fetch { leader: "b", follower: "a", rounds: 2, flush: false },
            Say("m2 is committed on B (HW 2); A still believes HW 1. Now A restarts."),
            Crash { replica: "a", power_loss: false, hw: None },
            Recover { follower: "a", leader: "b" },
            Say("B dies before A fetches again; A is elected leader at epoch 1 and takes m3."),
            Crash { replica: "b", power_loss: false, hw: None },
            Elect { replica: "a", epoch: 1, isr: &[] },
            Append { replica: "a", values: &["m3"], timestamp: 3000, flush: false },
            Say("B comes back as a follower of A."),
            Recover { follower: "b", leader: "a" },
            Fetch { leader: "a", follower: "b", rounds: 3, flush: false },
        ],
    }
}

/// KIP-101's second scenario: two hard failures, then a new leader.
fn kip101_scenario_2() -> Scenario {
    use Step::*;
    Scenario {
        name: "kip101-2",
        title: "KIP-101 scenario 2: two hard failures, then a new leader",
        story: "A leads at epoch 0 and flushes; B copies m1 and m2 but flushes only m1. Both lose power; B \
                is elected and writes m3.",
        uses_mode: true,
        steps: vec![
            Create { replica: "a", id: 1 },
            Create { replica: "b", id: 2 },
            Elect { replica: "a", epoch: 0, isr: &["b"] },
            Append { replica: "a", values: &["m1"], timestamp: 1000, flush: true },
            Fetch { leader: "a", follower: "b", rounds: 3, flush: true },
            Append { replica: "a", values: &["m2"], timestamp: 2000, flush: true },
            Fetch { leader: "a", follower: "b", rounds: 2, flush: false },
            Say("Power fails on both replicas: B's unflushed m2 is gone, A's flushed m2 survives."),
            Crash { replica: "a", power_loss: true, hw: None },
            Crash { replica: "b", power_loss: true, hw: None },
            Elect { replica: "b", epoch: 1, isr: &[] },
            Append { replica: "b", values: &["m3"], timestamp: 3000, flush: false },
            Say("A comes back as a follower of B."),
            Recover { follower: "a", leader: "b" },
            Fetch { leader: "b", follower: "a", rounds: 3, flush: false },
        ],
    }
}

/// KIP-279's scenario: fast leader failover.
fn kip279_scenario() -> Scenario {
    use Step::*;
    Scenario {
        name: "kip279",
        title: "KIP-279: fast leader failover",
        story: "A leads at epoch 1 and writes a0-a10 (B copies them) and a11-a20 (B does not). B is elected \
                at epoch 2 and writes b11-b15; then A is elected again at epoch 3 and writes a21.",
        uses_mode: true,
        steps: vec![
            Create { replica: "a", id: 1 },
            Create { replica: "b", id: 2 },
            Elect { replica: "a", epoch: 1, isr: &["b"] },
            Append {
                replica: "a",
                values: &["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10"],
                timestamp: 1000,
                flush: false,
            },
            Fetch { leader: "a", follower: "b", rounds: 3, flush: false },
            Append {
                replica: "a",
                values: &["a11", "a12", "a13", "a14", "a15", "a16", "a17", "a18", "a19", "a20"],
                timestamp: 2000,
                flush: false,
            },
            Elect { replica: "b", epoch: 2, isr: &["a"] },
            Append { replica: "b", values: &["b11", "b12", "b13", "b14", "b15"], timestamp: 3000, flush: false },
            Elect { replica: "a", epoch: 3, isr: &["b"] },
            Append { replica: "a", values: &["a21"], timestamp: 4000, flush: false },
            Say("B restarts as a follower of A."),
            Recover { follower: "b", leader: "a" },
            Fetch { leader: "a", follower: "b", rounds: 3, flush: false },
        ],
    }
}

/// The stuck LSO: a producer dies mid-transaction, then a transaction the coordinator never saw.
fn stuck_lso_scenario() -> Scenario {
    use Step::*;
    Scenario {
        name: "stuck-lso",
        title: "Stuck LSO: a producer dies mid-transaction, and a transaction the coordinator never saw",
        story: "A leads at epoch 1 with B in the ISR. A transactional producer writes two records and dies \
                before it commits; other producers keep writing. Then the hanging shape (KAFKA-9144): a \
                transactional batch the coordinator never saw. Each time, klog txn says where a read_committed \
                consumer stops.",
        uses_mode: false,
        steps: vec![
            Create { replica: "a", id: 1 },
            Create { replica: "b", id: 2 },
            Elect { replica: "a", epoch: 1, isr: &["b"] },
            Append { replica: "a", values: &["o1", "o2"], timestamp: 1000, flush: false },
            Fetch { leader: "a", follower: "b", rounds: 2, flush: false },
            Say("Producer 1000 (transactional.id payments, epoch 0) begins a transaction and writes t1 and t2."),
            TxnAppend { replica: "a", values: &["t1", "t2"], producer_id: 1000, producer_epoch: 0, timestamp: 2000 },
            Say("Its process is killed before it commits. Other producers keep writing, and B keeps fetching."),
            Append { replica: "a", values: &["o3", "o4", "o5"], timestamp: 3000, flush: false },
            Fetch { leader: "a", follower: "b", rounds: 2, flush: false },
            Say("Ask klog where A's last stable offset is, where read_committed consumers stop."),
            Txn { replica: "a" },
            Say("transaction.timeout.ms passes (60 s by default): the coordinator bumps producer 1000's epoch to \
                 1, fencing the dead process, and writes an ABORT marker with its coordinator epoch (3 here: \
                 the epoch of its __transaction_state partition's leader)."),
            EndTxn {
                replica: "a",
                producer_id: 1000,
                producer_epoch: 1,
                coordinator_epoch: 3,
                commit: false,
                timestamp: 63000,
            },
            Say("The marker is on A, not yet on B."),
            Txn { replica: "a" },
            Fetch { leader: "a", follower: "b", rounds: 2, flush: false },
            Txn { replica: "a" },
            Say("The hanging shape (KAFKA-9144): producer 2000's transactional batch reaches A although the \
                 coordinator never saw the transaction, or had already ended and forgotten it (a produce request \
                 delayed past its abort, the case KIP-890 defends against)."),
            TxnAppend { replica: "a", values: &["h1"], producer_id: 2000, producer_epoch: 0, timestamp: 64000 },
            Append { replica: "a", values: &["o6", "o7"], timestamp: 65000, flush: false },
            Fetch { leader: "a", follower: "b", rounds: 2, flush: false },
            Txn { replica: "a" },
            Say("transaction.timeout.ms passes, and passes again. Ask klog where A's LSO is now."),
            Txn { replica: "a" },
            Say("The coordinator has no ongoing transaction for producer 2000, so its timeout writes no marker \
                 and the LSO does not move (restarting the broker does not help: it rebuilds the same producer \
                 state). This is what the admin abort is for: a transaction the coordinator no longer knows, \
                 which kafka-transactions.sh find-hanging lists. The fix is the abort line in the report above."),
            AdminAbort { replica: "a", timestamp: 66000 },
            Fetch { leader: "a", follower: "b", rounds: 2, flush: false },
            Txn { replica: "a" },
        ],
    }
}

/// The Watch continued across a remote tier (KIP-405).
fn tiers_scenario() -> Scenario {
    use Step::*;
    Scenario {
        name: "tiers",
        title: "Tiers: the Watch continued across a remote tier (KIP-405)",
        story: "B leads at epoch 1 with A in the ISR; the topic keeps its older segments in remote storage \
                (remote.storage.enable=true, segments of one record, local.retention.bytes 0). A crashes and \
                stays down while B takes more records and moves its older segments to remote storage; A \
                restarts. Later A falls behind again, B fails, and A is elected without B.",
        uses_mode: false,
        steps: vec![
            CreateTiered { replica: "a", id: 1, segment_bytes: TIERS_SEGMENT_BYTES },
            CreateTiered { replica: "b", id: 2, segment_bytes: TIERS_SEGMENT_BYTES },
            Say("The records carry timestamps in the year 2100, so that retention.ms (7 days by default) plays \
                 no part here: only offsets and epochs decide what each tier keeps."),
            Elect { replica: "b", epoch: 1, isr: &["a"] },
            Append { replica: "b", values: &["m1"], timestamp: TIERS_T0, flush: false },
            Append { replica: "b", values: &["m2"], timestamp: TIERS_T0 + 1000, flush: false },
            Fetch { leader: "b", follower: "a", rounds: 3, flush: false },
            Say("A crashes and stays down. B shrinks its ISR to itself (A fell behind for \
                 replica.lag.time.max.ms) and takes m3 and m4 alone."),
            Crash { replica: "a", power_loss: false, hw: None },
            AlterIsr { replica: "b", isr: &[] },
            Append { replica: "b", values: &["m3"], timestamp: TIERS_T0 + 2000, flush: false },
            Append { replica: "b", values: &["m4"], timestamp: TIERS_T0 + 3000, flush: false },
            Say("B's copy task uploads its closed segments below the LSO to remote storage, with their metadata \
                 records in __remote_log_metadata; then local retention deletes the local copies of what \
                 remote storage holds."),
            TierCopy { replica: "b" },
            TierRetain { replica: "b" },
            Say("A restarts as B's follower."),
            Recover { follower: "a", leader: "b" },
            Fetch { leader: "b", follower: "a", rounds: 2, flush: false },
            Say("A crashes again. B takes m5 and m6 alone and copies its closed segments."),
            Crash { replica: "a", power_loss: false, hw: None },
            Append { replica: "b", values: &["m5"], timestamp: TIERS_T0 + 4000, flush: false },
            Append { replica: "b", values: &["m6"], timestamp: TIERS_T0 + 5000, flush: false },
            TierCopy { replica: "b" },
            Say("B fails. A is elected at epoch 2 without B, although A was out of the ISR (an unclean \
                 election), and takes n1."),
            Crash { replica: "b", power_loss: false, hw: None },
            Elect { replica: "a", epoch: 2, isr: &[] },
            Append { replica: "a", values: &["n1"], timestamp: TIERS_T0 + 6000, flush: false },
            Say("B restarts as A's follower."),
            Recover { follower: "b", leader: "a" },
            Say("Ask klog what each broker would serve across the tiers, and what remote storage still holds."),
            Remote,
        ],
    }
}

/// One record as the state view shows it: offset, epoch, value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub offset: i64,
    pub leader_epoch: i32,
    pub value: String,
}

/// A replica's state after a step.
#[derive(Debug, Clone)]
pub struct ReplicaState {
    pub name: &'static str,
    pub role: ReplicaRole,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    pub entries: Vec<Entry>,
    /// Its transactional batches and markers (and after a `klog txn` step its LSO), in a
    /// scenario with transactions; `None` elsewhere.
    pub txn: Option<stuck_lso::TxnView>,
}

/// The outcome of one run of a scenario in one mode.
#[derive(Debug, Clone)]
pub struct ModeOutcome {
    pub mode: Option<TruncationMode>,
    pub finals: Vec<ReplicaState>,
    /// The acknowledged records (covered by a leader's HW at some step) that the final leader's
    /// log does not hold, with their offsets.
    pub acked_lost: Vec<Entry>,
    pub first_divergent_offset: Option<i64>,
}

/// What the demo emits, in order.
#[derive(Clone)]
pub enum DemoEvent<'a> {
    /// Before anything runs: the scenario and the modes it will be played in (none for a
    /// scenario without a recovery), for a one-screen overview that tells no outcome.
    Opening(&'a Scenario, &'a [TruncationMode]),
    Scenario(&'a Scenario, Option<TruncationMode>),
    Say(&'a str),
    Command(String),
    Elected(&'a ElectReport),
    Appended(&'a str, &'a AppendReport),
    Fetched(&'a str, &'a FetchReport),
    Crashed(&'a crate::crash::CrashReport),
    /// A recovery, with the leader's records over the picture's window.
    Recovered(&'a FollowerRecoverReport, &'a draw::RecoveryDrawing),
    /// `klog txn` on the named replica.
    Txn(&'a str, &'a super::txn::TxnReport),
    /// The admin abort the next marker carries out (`kafka-transactions.sh abort`).
    AdminAbort(&'a stuck_lso::AbortSpec),
    /// `alter-isr` on the named leader.
    IsrAltered(&'a super::alter_isr::AlterIsrReport),
    /// `tier copy`.
    Copied(&'a crate::tiered::copy::CopyReport),
    /// `tier retain`.
    Retained(&'a str, &'a crate::tiered::retain::RetainReport),
    /// `klog remote`, with the scene's reading of it.
    Remote(&'a tiers::RemoteReading),
    /// Both tiers after a step of a tiered scene, just before its `State` (the picture draws
    /// them: log start and local log start, the remote segments).
    Tiers(&'a tiers::TierView),
    Created(&'a str),
    /// Every replica after a step: the `offset:(epoch,value)` view and the picture's data.
    State(&'a [ReplicaState], &'a DrawReport),
    /// `--predict`: the question about the step just run, asked before its report is shown.
    Question(&'a Prediction),
    Contrast(&'a Scenario, &'a [ModeOutcome]),
}

/// What a `--predict` answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerKind {
    /// A whole number (an offset, a HW).
    Offset,
    YesNo,
}

/// One question of `--predict`, with its truth and the one-sentence reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prediction {
    pub question: String,
    pub kind: AnswerKind,
    /// `1`, `yes`, `no`.
    pub truth: String,
    pub reason: String,
}

impl Prediction {
    /// Whether `answer` (one line as typed) is the truth: a number compared as a number, a
    /// yes/no by its first letter.
    /// Whether `answer` is an answer of the question's kind at all (a number, or yes/no).
    pub fn understands(&self, answer: &str) -> bool {
        let a = answer.trim().to_ascii_lowercase();
        match self.kind {
            AnswerKind::Offset => a.parse::<i64>().is_ok(),
            AnswerKind::YesNo => crate::answer::yes_no(&a).is_some(),
        }
    }

    /// What to type, said when an answer is not understood.
    pub fn expects(&self) -> &'static str {
        match self.kind {
            AnswerKind::Offset => "answer with a number",
            AnswerKind::YesNo => "answer yes or no",
        }
    }

    pub fn is_right(&self, answer: &str) -> bool {
        let a = answer.trim().to_ascii_lowercase();
        match self.kind {
            AnswerKind::Offset => a.parse::<i64>().ok().is_some_and(|n| n.to_string() == self.truth),
            AnswerKind::YesNo => crate::answer::yes_no(&a).is_some_and(|yes| yes == (self.truth == "yes")),
        }
    }
}

pub struct DemoRequest<'a> {
    pub scenario: Option<&'a str>,
    pub mode: Option<TruncationMode>,
    pub all_modes: bool,
    pub dir: &'a Path,
    /// Emit a [`Prediction`] before the report of each step the scenario is about.
    pub predict: bool,
}

/// What a state view shows of transactions: nothing, the batches' places, or those and the LSO
/// (on the picture of a `klog txn` step only: elsewhere it would answer that step's question).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TxnShown {
    None,
    Batches,
    WithLso,
}

fn state_of(root: &Path, name: &'static str, shown: TxnShown) -> Result<Option<ReplicaState>> {
    let dir = root.join(name);
    if !dir.exists() {
        return Ok(None);
    }
    let txn = match shown {
        TxnShown::None => None,
        _ => {
            let report = super::txn::run(&dir, None)?;
            stuck_lso::txn_view(&dir, &report)?.map(|mut v| {
                if shown == TxnShown::WithLso {
                    v.last_stable_offset = Some(report.last_stable_offset());
                }
                v
            })
        }
    };
    let r = Replica::open(&dir, None)?;
    let mut cursor = RecordCursor::new(r.log(), r.log_start_offset(), r.log_end_offset())?;
    let mut entries = Vec::new();
    while let Some(rec) = cursor.next_record()? {
        // A transaction marker is named by its type, not by its control record's bytes.
        let marker = txn.as_ref().and_then(|v: &stuck_lso::TxnView| {
            v.batches.iter().find(|b| (b.base_offset..=b.last_offset).contains(&rec.offset)).and_then(|b| {
                match b.kind {
                    stuck_lso::TxnKind::Marker { commit } => Some(if commit { "COMMIT" } else { "ABORT" }),
                    _ => None,
                }
            })
        });
        entries.push(Entry {
            offset: rec.offset,
            leader_epoch: rec.leader_epoch,
            value: match marker {
                Some(m) => m.to_string(),
                None => String::from_utf8_lossy(rec.value.as_deref().unwrap_or_default()).into_owned(),
            },
        });
    }
    Ok(Some(ReplicaState {
        name,
        role: ReplicaRole::of(&r),
        log_end_offset: r.log_end_offset(),
        high_watermark: r.high_watermark(),
        entries,
        txn,
    }))
}

fn states(root: &Path, shown: TxnShown) -> Result<Vec<ReplicaState>> {
    ["a", "b"].into_iter().filter_map(|n| state_of(root, n, shown).transpose()).collect::<Result<Vec<_>>>()
}

/// The picture's data for every replica of the lab: the whole (small) logs, focused on
/// `focus`, else the first divergence or the lowest HW.
fn drawing(root: &Path, focus: Option<i64>, tiered: bool) -> Result<DrawReport> {
    let opened: Vec<(&str, Replica)> = ["a", "b"]
        .into_iter()
        .filter(|n| root.join(n).exists())
        .map(|n| Replica::open(&root.join(n), None).map(|r| (n, r)))
        .collect::<Result<_>>()?;
    let refs: Vec<&Replica> = opened.iter().map(|(_, r)| r).collect();
    // A tiered lab's picture starts at the log start across tiers (its remote segments drawn).
    let start = refs
        .iter()
        .map(|r| if tiered { tiers::log_start_across_tiers(r) } else { r.log_start_offset() })
        .min()
        .unwrap_or(0);
    let end = refs.iter().map(|r| r.log_end_offset()).max().unwrap_or(0);
    // Focus where the story is (the first divergence, else the lowest HW), not at the start.
    let (_, _, default_focus) = draw::window(&refs, None, 1);
    let focus = focus.unwrap_or(default_focus);
    let replicas =
        opened.iter().map(|(n, r)| draw::draw_replica(n.to_string(), r, start, end)).collect::<Result<Vec<_>>>()?;
    Ok(DrawReport { replicas, from: start, end: end.max(start + 1), focus, warnings: Vec::new() })
}

/// `F's HW` after a fetch, with why it is there: the HW a response carries was read before the
/// leader recorded the fetch ([the model](crate::replication), operation 3), so the follower lags.
fn fetch_prediction(
    leader: &str,
    follower: &str,
    rounds: u64,
    hws_before: (i64, i64),
    report: &FetchReport,
) -> Option<Prediction> {
    let last = report.rounds.last()?;
    let copied: u64 = report.rounds.iter().map(|r| r.records_copied).sum();
    // The seed's first observation: records copied, and the HW left below them.
    let copied_uncommitted = copied > 0 && last.follower_high_watermark < last.follower_log_end_offset;
    if hws_before == (last.leader_high_watermark, last.follower_high_watermark) && !copied_uncommitted {
        return None;
    }
    let (l, f) = (leader.to_uppercase(), follower.to_uppercase());
    let reason = if let Some(stuck) = &last.stuck {
        format!(
            "the fetch is stuck: {l} returns its batch {} to {}, which starts below {f}'s log end {}, so nothing is \
             appended and {f}'s HW stays {}",
            stuck.batch_base_offset,
            stuck.batch_last_offset,
            stuck.follower_log_end_offset,
            last.follower_high_watermark
        )
    } else if copied_uncommitted && last.leader_high_watermark == last.follower_high_watermark {
        format!(
            "{f} copied {copied} record(s) (its LEO is {}), but {l}'s HW is still {}: {l} moves it only when a \
             fetch reports {f}'s new offset, and each response carries the HW {l} read before recording the \
             fetch, so {f}'s HW stays {}",
            last.follower_log_end_offset, last.leader_high_watermark, last.follower_high_watermark
        )
    } else if last.follower_high_watermark < last.leader_high_watermark {
        format!(
            "{l}'s HW is {} but each response carries the HW {l} read before recording {f}'s fetch, so {f} \
             learns only {} and lags by one round trip",
            last.leader_high_watermark, last.follower_high_watermark
        )
    } else {
        format!(
            "{f} has caught up with {l}'s HW {}: it arrives one round trip after {l} moves it",
            last.follower_high_watermark
        )
    };
    Some(Prediction {
        question: format!(
            "{f} fetches from {l} ({rounds} round{}): what will {f}'s HW be after it?",
            if rounds == 1 { "" } else { "s" }
        ),
        kind: AnswerKind::Offset,
        truth: last.follower_high_watermark.to_string(),
        reason,
    })
}

/// The questions of a recovery: where the follower's log will end, and whether its first record
/// at or above its own HW survives. Each reason gives the era's own cause: its own HW under hw,
/// the leader's epoch lookup under kip101 and kip279 (which never look at the HW).
fn recover_predictions(follower: &str, leader: &str, r: &FollowerRecoverReport) -> Vec<Prediction> {
    let (f, l) = (follower.to_uppercase(), leader.to_uppercase());
    let reason = crate::replication::explain::one_sentence(
        &r.plan,
        &r.leader_view,
        &r.follower_view,
        (&l, &f),
        r.first_divergent_offset,
    );
    let mut out = vec![Prediction {
        question: format!(
            "{f} restarts as a follower of {l} under {}: at which offset will {f}'s log end?",
            r.mode.name()
        ),
        kind: AnswerKind::Offset,
        truth: r.follower_log_end_offset_after.to_string(),
        reason,
    }];
    if let Some(row) = r.rows.iter().find(|row| row.follower.offset >= r.follower_view.high_watermark) {
        let value = String::from_utf8_lossy(row.follower.value.as_deref().unwrap_or_default()).into_owned();
        let diverged = matches!(row.class, super::recover::RecordClass::Diverged);
        let survives = matches!(row.class, super::recover::RecordClass::Kept) || diverged;
        let fate = if survives { "kept" } else { "truncated" };
        let hw = r.follower_view.high_watermark;
        let why = match r.plan.reason {
            TruncationReason::OwnHighWatermark
            | TruncationReason::NoEpochCacheHighWatermark
            | TruncationReason::UndefinedAnswerHighWatermark => {
                format!("{value} is at or above {f}'s own HW {hw}, and {f} cuts its log at that HW: it is {fate}")
            }
            _ => format!(
                "{f} does not cut at its HW: {l}'s answer puts the cut at {}, so {value} (offset {}) is {fate}",
                r.cut_offset, row.follower.offset
            ),
        };
        let divergence = if diverged {
            let other = row.leader.as_ref().map_or(String::new(), |o| {
                format!(
                    " {} (epoch {})",
                    String::from_utf8_lossy(o.value.as_deref().unwrap_or_default()),
                    o.leader_epoch
                )
            });
            format!(
                "; but {l} holds{other} at offset {}: the logs diverge there{}",
                row.follower.offset,
                match r.mode {
                    TruncationMode::Kip101 => ", the divergence KIP-279 fixed",
                    TruncationMode::Hw => ", the divergence KIP-101 fixed",
                    TruncationMode::Kip279 => "",
                }
            )
        } else {
            String::new()
        };
        out.push(Prediction {
            question: format!("will {value} (offset {}) survive on {f}? [y/n]", row.follower.offset),
            kind: AnswerKind::YesNo,
            truth: if survives { "yes" } else { "no" }.into(),
            reason: format!("{why}{divergence}"),
        });
    }
    out
}

/// The records `leader` serves: its local log, and in a tiered lab the remote segments within
/// its lineage too ([`tiers::served_entries`]).
fn held_by(root: &Path, leader: &'static str, tiered: bool) -> Result<Vec<Entry>> {
    if tiered {
        return tiers::served_entries(root, leader);
    }
    Ok(state_of(root, leader, TxnShown::None)?.map(|s| s.entries).unwrap_or_default())
}

/// The acknowledged records (`acked`: every record a leader's HW has covered so far in the run)
/// that the leader's log `leader` does not hold: lost, whatever becomes of the other copies.
fn lost_from(acked: &[Entry], leader: &[Entry]) -> Vec<Entry> {
    acked.iter().filter(|a| !leader.contains(a)).cloned().collect()
}

/// Add to `acked` every record below a leader's HW in `states` (a producer with acks=all was
/// answered for it).
fn note_acked(acked: &mut Vec<Entry>, states: &[ReplicaState]) {
    for s in states.iter().filter(|s| s.role == ReplicaRole::Leader) {
        for e in s.entries.iter().filter(|e| e.offset < s.high_watermark) {
            if !acked.contains(e) {
                acked.push(e.clone());
            }
        }
    }
}

/// After a restart against the new leader: has the run lost an acknowledged write so far (an
/// acknowledged record the leader's log does not hold)?
fn loss_prediction(follower: &str, leader: &str, acked_lost: &[Entry]) -> Prediction {
    let (f, l) = (follower.to_uppercase(), leader.to_uppercase());
    let reason = if acked_lost.is_empty() {
        format!("every record acknowledged so far is in the leader {l}'s log")
    } else {
        let lost: Vec<String> = acked_lost.iter().map(|e| format!("{} (offset {})", e.value, e.offset)).collect();
        let (verb, pronoun) = if lost.len() == 1 { ("was", "it") } else { ("were", "them") };
        format!("{} {verb} acknowledged and the leader {l} does not hold {pronoun}: lost", lost.join(", "))
    };
    Prediction {
        question: format!("once {f} has restarted, has this run lost an acknowledged write? [y/n]"),
        kind: AnswerKind::YesNo,
        truth: if acked_lost.is_empty() { "no" } else { "yes" }.into(),
        reason,
    }
}

/// Before an election once something is acknowledged: will the new leader's log hold every
/// acknowledged record? A leader serves its own log only, so one it lacks is lost there.
fn election_prediction(replica: &str, epoch: i32, acked: &[Entry], held: &[Entry]) -> Prediction {
    let r = replica.to_uppercase();
    let missing = lost_from(acked, held);
    let named = |es: &[Entry]| es.iter().map(|e| format!("{} (offset {})", e.value, e.offset)).collect::<Vec<_>>();
    let reason = if missing.is_empty() {
        format!(
            "{r}'s log holds every acknowledged record ({}): the new leader can serve them all",
            named(acked).join(", ")
        )
    } else {
        format!(
            "{} {} acknowledged (a leader's HW covered {}) and {r}'s log does not hold {}: a leader serves only its \
             own log, so from epoch {epoch} on {} lost",
            named(&missing).join(", "),
            if missing.len() == 1 { "was" } else { "were" },
            if missing.len() == 1 { "it" } else { "them" },
            if missing.len() == 1 { "it" } else { "them" },
            if missing.len() == 1 { "it is" } else { "they are" },
        )
    };
    Prediction {
        question: format!("{r} is elected leader at epoch {epoch}: will its log hold every acknowledged record? [y/n]"),
        kind: AnswerKind::YesNo,
        truth: if missing.is_empty() { "yes" } else { "no" }.into(),
        reason,
    }
}

/// Run one scenario in one mode under `root` (which must be empty or absent). With `predict`,
/// questions are asked; with `setup_asked` the steps before the first recovery (the same in
/// every mode, already asked in an earlier mode's run) are not asked again.
fn run_once(
    sc: &Scenario,
    mode: Option<TruncationMode>,
    root: &Path,
    predict: bool,
    setup_asked: bool,
    sink: &mut DemoSink<'_>,
) -> Result<ModeOutcome> {
    crate::durable::create_dir(root)?;
    sink(DemoEvent::Scenario(sc, mode))?;
    let recover_mode = mode.unwrap_or(TruncationMode::Kip279);
    let mut run = DemoRun {
        mode,
        root,
        rules: crate::replication::release::Rules::of_mode(recover_mode),
        predict,
        ask: predict && !setup_asked,
        acked: Vec::new(),
        with_txns: sc.steps.iter().any(|s| matches!(s, Step::TxnAppend { .. })),
        tiered: sc.steps.iter().any(|s| matches!(s, Step::CreateTiered { .. })),
    };
    for step in &sc.steps {
        if let Some(line) = command_line(step, recover_mode, &shown_in_lab) {
            sink(DemoEvent::Command(line))?;
        }
        if run.play(step, sink)? {
            run.show_state(step, sink)?;
        }
    }
    run.outcome()
}

/// Where the demo's events go.
type DemoSink<'s> = dyn FnMut(DemoEvent<'_>) -> Result<()> + 's;

/// A replica dir as the demo's command lines name it.
fn shown_in_lab(replica: &str) -> String {
    format!("$LAB/{replica}")
}

/// One run of a scenario in one mode: where it runs, its release's rules, and what it has
/// asked and seen acknowledged so far.
struct DemoRun<'a> {
    mode: Option<TruncationMode>,
    root: &'a Path,
    rules: crate::replication::release::Rules,
    predict: bool,
    /// Whether questions are asked now.
    ask: bool,
    /// Every record a leader's HW has covered so far.
    acked: Vec<Entry>,
    with_txns: bool,
    tiered: bool,
}

impl DemoRun<'_> {
    fn path(&self, replica: &str) -> PathBuf {
        self.root.join(replica)
    }

    /// Run `step`; false for narration, which changes no replica.
    fn play(&mut self, step: &Step, sink: &mut DemoSink<'_>) -> Result<bool> {
        match step {
            Step::Say(text) => {
                sink(DemoEvent::Say(text))?;
                return Ok(false);
            }
            Step::SayByEra { hw, epochs } => {
                sink(DemoEvent::Say(if self.mode == Some(TruncationMode::Hw) { hw } else { epochs }))?;
                return Ok(false);
            }
            Step::Create { replica, id } => {
                self.create(replica, *id, crate::log::DEFAULT_SEGMENT_BYTES, false, sink)?
            }
            Step::CreateTiered { replica, id, segment_bytes } => {
                self.create(replica, *id, *segment_bytes, true, sink)?
            }
            Step::Elect { replica, epoch, isr } => self.elect(replica, *epoch, isr, sink)?,
            Step::Append { replica, values, timestamp, flush } => {
                self.append(replica, values, *timestamp, *flush, sink)?
            }
            Step::Fetch { leader, follower, rounds, flush } => self.fetch(leader, follower, *rounds, *flush, sink)?,
            Step::Crash { replica, power_loss, hw } => {
                let report = crate::crash::crash(
                    &self.path(replica),
                    None,
                    &crate::crash::CrashOptions { power_loss: *power_loss, high_watermark: *hw, ..Default::default() },
                )?;
                sink(DemoEvent::Crashed(&report))?;
            }
            Step::Recover { follower, leader } => self.recover(follower, leader, sink)?,
            Step::TxnAppend { replica, values, producer_id, producer_epoch, timestamp } => {
                let producer = super::append::Producer {
                    id: *producer_id,
                    epoch: *producer_epoch,
                    sequence: None,
                    transactional: true,
                    end_txn: None,
                };
                self.append_as_producer(replica, values, *timestamp, producer, sink)?;
            }
            Step::EndTxn { replica, producer_id, producer_epoch, coordinator_epoch, commit, timestamp } => {
                let producer = super::append::Producer {
                    id: *producer_id,
                    epoch: *producer_epoch,
                    sequence: None,
                    transactional: false,
                    end_txn: Some((*commit, *coordinator_epoch)),
                };
                self.append_as_producer(replica, &[], *timestamp, producer, sink)?;
            }
            Step::AdminAbort { replica, timestamp } => self.admin_abort(replica, *timestamp, sink)?,
            Step::AlterIsr { replica, isr } => self.alter_isr(replica, isr, sink)?,
            Step::TierCopy { replica } => self.tier_copy(replica, sink)?,
            Step::TierRetain { replica } => self.tier_retain(replica, sink)?,
            Step::Remote => {
                let dirs: Vec<PathBuf> = ["a", "b"].iter().map(|n| self.path(n)).filter(|d| d.exists()).collect();
                let reading = tiers::read_remote(self.root, &dirs, &self.acked)?;
                sink(DemoEvent::Remote(&reading))?;
            }
            Step::Txn { replica } => self.txn(replica, sink)?,
        }
        Ok(true)
    }

    /// `create`: a one-partition log dir of topic `demo` (a tiered lab's, with the scene's remote
    /// dir, when `tiered`).
    fn create(
        &self,
        replica: &'static str,
        id: i32,
        segment_bytes: u64,
        tiered: bool,
        sink: &mut DemoSink<'_>,
    ) -> Result<()> {
        let remote_dir = self.root.join(tiers::REMOTE_DIR);
        super::create::run(&super::create::CreateRequest {
            dir: &self.path(replica),
            topic: "demo",
            partition: 0,
            partitions: 1,
            replica_id: Some(id),
            segment_bytes,
            index_interval_bytes: crate::log::DEFAULT_INDEX_INTERVAL_BYTES,
            index_bytes_max: crate::log::DEFAULT_INDEX_BYTES_MAX,
            segment_ms: crate::log::DEFAULT_SEGMENT_MS,
            min_insync_replicas: 1,
            remote_dir: tiered.then_some(remote_dir.as_path()),
        })?;
        sink(DemoEvent::Created(replica))
    }

    /// `elect`, asked first (once something is acknowledged) whether the new leader holds it.
    fn elect(&self, replica: &'static str, epoch: i32, isr: &[&str], sink: &mut DemoSink<'_>) -> Result<()> {
        if self.ask && self.tiered {
            // Across tiers a new leader's history is its epoch lineage, not its local log.
            if let Some(q) = tiers::unclean_election_prediction(self.root, replica, epoch, &self.acked)? {
                sink(DemoEvent::Question(&q))?;
            }
        } else if self.ask && !self.acked.is_empty() {
            let held = state_of(self.root, replica, TxnShown::None)?.map(|s| s.entries).unwrap_or_default();
            sink(DemoEvent::Question(&election_prediction(replica, epoch, &self.acked, &held)))?;
        }
        // The run's release: up to 2.0.0 a new leader's epoch entry comes with its first append.
        let epoch_entry =
            if self.rules.epoch_entry_on_election { EpochEntryMode::OnElection } else { EpochEntryMode::FirstAppend };
        let isr_dirs: Vec<PathBuf> = isr.iter().map(|m| self.path(m)).collect();
        let report = super::elect::run(&ElectRequest {
            dir: &self.path(replica),
            partition: None,
            epoch: Some(epoch),
            isr: &isr_dirs,
            epoch_entry,
            allow_other_cluster: false,
        })?;
        sink(DemoEvent::Elected(&report))
    }

    fn append(
        &self,
        replica: &'static str,
        values: &[&str],
        timestamp: i64,
        flush: bool,
        sink: &mut DemoSink<'_>,
    ) -> Result<()> {
        let report = super::append::run(
            AppendRequest {
                dir: &self.path(replica),
                partition: None,
                values: Values::Given(values.iter().map(|v| v.as_bytes().to_vec()).collect()),
                key: None,
                headers: Vec::new(),
                records_per_batch: None,
                timestamp,
                flush,
                compression: crate::format::compression::Compression::None,
                producer: None,
            },
            &mut crate::parallel::NoProgress,
        )?;
        sink(DemoEvent::Appended(replica, &report))
    }

    /// `fetch` by the run's release, asked first where the HWs go (not in a scene about
    /// transactions or tiers).
    fn fetch(
        &self,
        leader: &str,
        follower: &'static str,
        rounds: u64,
        flush: bool,
        sink: &mut DemoSink<'_>,
    ) -> Result<()> {
        let hws_before = (
            Replica::open(&self.path(leader), None)?.high_watermark(),
            Replica::open(&self.path(follower), None)?.high_watermark(),
        );
        let report = super::fetch::run(&FetchRequest {
            leader: &self.path(leader),
            follower: &self.path(follower),
            partition: None,
            rounds,
            until_caught_up: false,
            max_bytes: DEFAULT_FETCH_MAX_BYTES,
            flush,
            fencing: true,
            rules: self.rules,
            allow_other_cluster: false,
        })?;
        // A scene about transactions asks about the LSO, one about tiers about the
        // restart and the election, not each fetch's HW lag.
        if self.ask && !self.with_txns && !self.tiered {
            if let Some(q) = fetch_prediction(leader, follower, rounds, hws_before, &report) {
                sink(DemoEvent::Question(&q))?;
            }
        }
        sink(DemoEvent::Fetched(follower, &report))
    }

    /// `recover` of `follower` against `leader` by the run's release; from here on every step
    /// is asked (each mode's steps differ from the first recovery on).
    fn recover(&mut self, follower: &str, leader: &'static str, sink: &mut DemoSink<'_>) -> Result<()> {
        let report = super::recover::run(&RecoverRequest {
            dir: &self.path(follower),
            partition: None,
            leader: Some(&self.path(leader)),
            rules: self.rules,
            dry_run: false,
            catch_up: false,
            context: 3,
            leader_epoch: None,
            told_first: false,
            fencing: true,
            metadata: None,
            allow_other_cluster: false,
            remote_dir: None,
        })?;
        let RecoverReport::Follower(report) = report else {
            return Err(Error::Usage("demo: recover without a leader".into()));
        };
        self.ask = self.predict;
        if self.ask && report.plan.from_remote.is_some() {
            for q in tiers::restart_predictions(follower, leader, &report) {
                sink(DemoEvent::Question(&q))?;
            }
        } else if self.ask {
            for q in recover_predictions(follower, leader, &report) {
                sink(DemoEvent::Question(&q))?;
            }
            let held = held_by(self.root, leader, self.tiered)?;
            sink(DemoEvent::Question(&loss_prediction(follower, leader, &lost_from(&self.acked, &held))))?;
        }
        let drawing = draw::draw_recovery(report.picture_window(), &self.path(leader), None)?;
        sink(DemoEvent::Recovered(&report, &drawing))
    }

    fn append_as_producer(
        &self,
        replica: &'static str,
        values: &[&str],
        timestamp: i64,
        producer: super::append::Producer,
        sink: &mut DemoSink<'_>,
    ) -> Result<()> {
        let report = append_as(&self.path(replica), values, timestamp, Some(producer))?;
        sink(DemoEvent::Appended(replica, &report))
    }

    /// The admin's abort of the open transaction `klog txn` names: its ABORT marker.
    fn admin_abort(&self, replica: &'static str, timestamp: i64, sink: &mut DemoSink<'_>) -> Result<()> {
        let txn = super::txn::run(&self.path(replica), None)?;
        let spec = stuck_lso::abort_spec(&txn)
            .ok_or_else(|| Error::Usage(format!("demo: {replica} has no open transaction for the admin abort")))?;
        sink(DemoEvent::AdminAbort(&spec))?;
        sink(DemoEvent::Command(end_txn_command(
            &shown_in_lab(replica),
            spec.producer_id,
            spec.producer_epoch,
            spec.coordinator_epoch,
            false,
            timestamp,
        )))?;
        let producer = super::append::Producer {
            id: spec.producer_id,
            epoch: spec.producer_epoch,
            sequence: None,
            transactional: false,
            end_txn: Some((false, spec.coordinator_epoch)),
        };
        self.append_as_producer(replica, &[], timestamp, producer, sink)
    }

    fn alter_isr(&self, replica: &str, isr: &[&str], sink: &mut DemoSink<'_>) -> Result<()> {
        let isr_dirs: Vec<PathBuf> = isr.iter().map(|m| self.path(m)).collect();
        let report = super::alter_isr::run(&super::alter_isr::AlterIsrRequest {
            dir: &self.path(replica),
            partition: None,
            isr: &isr_dirs,
            allow_other_cluster: false,
        })?;
        sink(DemoEvent::IsrAltered(&report))
    }

    /// `tier retain` with the scene's local retention.
    fn tier_retain(&self, replica: &'static str, sink: &mut DemoSink<'_>) -> Result<()> {
        let report = super::tier::retain(&super::tier::RetainRequest {
            dir: &self.path(replica),
            partition: None,
            limit: super::tier::LocalRetention::Bytes(tiers::LOCAL_RETENTION_BYTES),
        })?;
        sink(DemoEvent::Retained(replica, &report))
    }

    fn tier_copy(&self, replica: &str, sink: &mut DemoSink<'_>) -> Result<()> {
        let report = super::tier::copy(&super::tier::CopyRequest {
            leader: &self.path(replica),
            partition: None,
            remote_dir: None,
            stop_after_files: None,
            // The metadata events' time: fixed, so that a run gives the same bytes.
            now_ms: TIERS_T0 + 60_000,
        })?;
        sink(DemoEvent::Copied(&report))
    }

    /// `txn`, asked first where the LSO is.
    fn txn(&self, replica: &'static str, sink: &mut DemoSink<'_>) -> Result<()> {
        let report = super::txn::run(&self.path(replica), None)?;
        if self.ask {
            for q in lso_predictions(replica, &report) {
                sink(DemoEvent::Question(&q))?;
            }
        }
        sink(DemoEvent::Txn(replica, &report))
    }

    /// After a step: every replica's state (with the transactions in a scene about them), the
    /// tiers in a tiered scene, and the picture.
    fn show_state(&mut self, step: &Step, sink: &mut DemoSink<'_>) -> Result<()> {
        let shown = match step {
            _ if !self.with_txns => TxnShown::None,
            Step::Txn { .. } => TxnShown::WithLso,
            _ => TxnShown::Batches,
        };
        let now = states(self.root, shown)?;
        note_acked(&mut self.acked, &now);
        if let Some(view) = tiers::tier_view(self.root)? {
            sink(DemoEvent::Tiers(&view))?;
        }
        // A scene with transactions keeps the earliest open one in view (what holds the LSO).
        let open_at = now
            .iter()
            .filter_map(|s| s.txn.as_ref())
            .flat_map(|v| v.batches.iter())
            .filter(|b| b.kind == stuck_lso::TxnKind::Open)
            .map(|b| b.base_offset)
            .min();
        sink(DemoEvent::State(&now, &drawing(self.root, open_at, self.tiered)?))
    }

    /// What the run ended with: each replica's final state, and every acknowledged record the
    /// final leader does not hold.
    fn outcome(self) -> Result<ModeOutcome> {
        let finals = states(self.root, if self.with_txns { TxnShown::WithLso } else { TxnShown::None })?;
        let held = match finals.iter().find(|s| s.role == ReplicaRole::Leader) {
            Some(s) => held_by(self.root, s.name, self.tiered)?,
            None => Vec::new(),
        };
        let acked_lost = lost_from(&self.acked, &held);
        let a = Replica::open(&self.path("a"), None)?;
        let b = Replica::open(&self.path("b"), None)?;
        let diff = diff_logs(a.log(), b.log())?;
        Ok(ModeOutcome { mode: self.mode, finals, acked_lost, first_divergent_offset: diff.first_divergent_offset })
    }
}

/// The command line `step` runs as, each replica shown as `shown` names it, in a run whose
/// truncation mode is `recover_mode` (its elections' epoch entry, its fetch path, its recover);
/// `None` for a step that is no one command: a `Say`, and an `AdminAbort`, whose marker is
/// resolved from `klog txn` when it runs. The demo prints these lines; `klog lab`'s stuck-lso
/// preset runs them.
pub fn command_line(step: &Step, recover_mode: TruncationMode, shown: &dyn Fn(&str) -> String) -> Option<String> {
    Some(match step {
        Step::Say(_) | Step::SayByEra { .. } | Step::AdminAbort { .. } => return None,
        Step::Create { replica, id } => format!("klog create {} --replica-id {id}", shown(replica)),
        Step::Elect { replica, epoch, isr } => {
            let isr_text: String = isr.iter().map(|m| format!(" {}", shown(m))).collect();
            let isr_flag = if isr.is_empty() { String::new() } else { format!(" --isr{isr_text}") };
            // The run's release: up to 2.0.0 a new leader's epoch entry comes with its first append.
            let rules = crate::replication::release::Rules::of_mode(recover_mode);
            let entry_flag = if rules.epoch_entry_on_election { "" } else { " --epoch-entry first-append" };
            format!("klog elect {} --epoch {epoch}{isr_flag}{entry_flag}", shown(replica))
        }
        Step::Append { replica, values, timestamp, flush } => format!(
            "klog append {} {} --timestamp {timestamp}{}",
            shown(replica),
            values.join(" "),
            if *flush { " --flush" } else { "" }
        ),
        Step::Fetch { leader, follower, rounds, flush } => {
            // The mode's fetch path: kip279 is fetch's default (2.8 and later); an older era
            // is named, or the command shown would run the newer fetch.
            let era = match recover_mode {
                TruncationMode::Kip279 => String::new(),
                m => format!(" --mode {}", m.name()),
            };
            format!(
                "klog fetch --leader {} {} --rounds {rounds}{}{era}",
                shown(leader),
                shown(follower),
                if *flush { " --flush" } else { "" }
            )
        }
        Step::Crash { replica, power_loss, hw } => format!(
            "klog crash {}{}{}",
            shown(replica),
            if *power_loss { " --power-loss" } else { "" },
            hw.map_or(String::new(), |n| format!(" --hw {n}"))
        ),
        Step::Recover { follower, leader } => {
            format!("klog recover {} --leader {} --mode {}", shown(follower), shown(leader), recover_mode.name())
        }
        Step::TxnAppend { replica, values, producer_id, producer_epoch, timestamp } => format!(
            "klog append {} {} --timestamp {timestamp} --producer-id {producer_id} --producer-epoch \
             {producer_epoch} --transactional",
            shown(replica),
            values.join(" "),
        ),
        Step::EndTxn { replica, producer_id, producer_epoch, coordinator_epoch, commit, timestamp } => {
            end_txn_command(&shown(replica), *producer_id, *producer_epoch, *coordinator_epoch, *commit, *timestamp)
        }
        Step::Txn { replica } => format!("klog txn {}", shown(replica)),
        Step::CreateTiered { replica, id, segment_bytes } => format!(
            "klog create {} --replica-id {id} --segment-bytes {segment_bytes} --remote-dir {}",
            shown(replica),
            shown(tiers::REMOTE_DIR)
        ),
        Step::AlterIsr { replica, isr } => {
            let isr_text: String = isr.iter().map(|m| format!(" {}", shown(m))).collect();
            let isr_flag = if isr.is_empty() { String::new() } else { format!(" --isr{isr_text}") };
            format!("klog alter-isr {}{isr_flag}", shown(replica))
        }
        Step::TierCopy { replica } => format!("klog tier copy {}", shown(replica)),
        Step::TierRetain { replica } => {
            format!("klog tier retain {} --local-retention-bytes {}", shown(replica), tiers::LOCAL_RETENTION_BYTES)
        }
        Step::Remote => format!("klog remote {} {} --remote-dir {}", shown("a"), shown("b"), shown(tiers::REMOTE_DIR)),
    })
}

/// `klog append DIR --producer-id ID --producer-epoch E --end-txn commit|abort --coordinator-epoch C`.
pub fn end_txn_command(
    dir: &str,
    producer_id: i64,
    producer_epoch: i16,
    coordinator_epoch: i32,
    commit: bool,
    timestamp: i64,
) -> String {
    format!(
        "klog append {dir} --timestamp {timestamp} --producer-id {producer_id} --producer-epoch {producer_epoch} \
         --end-txn {} --coordinator-epoch {coordinator_epoch}",
        if commit { "commit" } else { "abort" }
    )
}

/// One `append` of `values` (none: a marker) as `producer`.
fn append_as(
    dir: &Path,
    values: &[&str],
    timestamp: i64,
    producer: Option<super::append::Producer>,
) -> Result<AppendReport> {
    super::append::run(
        AppendRequest {
            dir,
            partition: None,
            values: Values::Given(values.iter().map(|v| v.as_bytes().to_vec()).collect()),
            key: None,
            headers: Vec::new(),
            records_per_batch: None,
            timestamp,
            flush: false,
            compression: crate::format::compression::Compression::None,
            producer,
        },
        &mut crate::commands::NoProgress,
    )
}

/// Run the demo: one scenario in one or more modes, then the contrast.
pub fn run(req: &DemoRequest<'_>, sink: &mut dyn FnMut(DemoEvent<'_>) -> Result<()>) -> Result<Vec<ModeOutcome>> {
    let name = req.scenario.unwrap_or("kip101-1");
    let sc = scenario(name).ok_or_else(|| {
        Error::Usage(format!(
            "unknown scenario {} (scenarios: {})",
            crate::escape::arg(name),
            SCENARIO_NAMES.join(", ")
        ))
    })?;
    let modes: Vec<Option<TruncationMode>> = if !sc.uses_mode {
        vec![None]
    } else if req.all_modes {
        TruncationMode::ALL.iter().copied().map(Some).collect()
    } else if let Some(m) = req.mode {
        vec![Some(m)]
    } else if req.scenario.is_none() || name != "kip279" {
        vec![Some(TruncationMode::Hw), Some(TruncationMode::Kip101)]
    } else {
        vec![Some(TruncationMode::Kip101), Some(TruncationMode::Kip279)]
    };
    if req.dir.exists() && !req.dir.is_dir() {
        return Err(Error::layout(req.dir, "is not a directory; --dir takes an empty or absent directory for the lab"));
    }
    if req.dir.exists() && std::fs::read_dir(req.dir).map_err(|e| Error::io(req.dir, "list", e))?.next().is_some() {
        return Err(Error::layout(req.dir, "directory exists and is not empty; the demo needs an empty one"));
    }
    let played: Vec<TruncationMode> = modes.iter().flatten().copied().collect();
    sink(DemoEvent::Opening(&sc, &played))?;
    let mut outcomes = Vec::new();
    for (i, mode) in modes.iter().enumerate() {
        let root = req.dir.join(mode.map_or("run", |m| m.name()));
        outcomes.push(run_once(&sc, *mode, &root, req.predict, i > 0, sink)?);
    }
    if sc.uses_mode {
        sink(DemoEvent::Contrast(&sc, &outcomes))?;
    }
    Ok(outcomes)
}

/// The questions of a `klog txn` step on `replica`: its LSO at its HW, and while that is below
/// the HW how many offsets `read_committed` consumers cannot read. Truths and reasons come from
/// the report.
fn lso_predictions(replica: &str, report: &super::txn::TxnReport) -> Vec<Prediction> {
    let r = replica.to_uppercase();
    let (lso, hw) = (report.last_stable_offset(), report.high_watermark);
    let reason = stuck_lso::what_holds_the_lso(report);
    let mut out = vec![Prediction {
        question: format!("{r}'s HW is {hw}: what is {r}'s last stable offset (LSO)?"),
        kind: AnswerKind::Offset,
        truth: lso.to_string(),
        reason,
    }];
    if lso < hw {
        out.push(Prediction {
            question: format!(
                "how many offsets below {r}'s HW can a read_committed consumer not read yet (its fetch stops at the \
                 LSO)?"
            ),
            kind: AnswerKind::Offset,
            truth: (hw - lso).to_string(),
            reason: format!(
                "read_committed fetches stop at the LSO {lso} while the HW is {hw}: offsets {lso} to {} ({} of them) \
                 are held back, whichever producer wrote them",
                hw - 1,
                hw - lso
            ),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(offset: i64, leader_epoch: i32, value: &str) -> Entry {
        Entry { offset, leader_epoch, value: value.into() }
    }

    fn state(role: ReplicaRole, high_watermark: i64, entries: Vec<Entry>) -> ReplicaState {
        ReplicaState { name: "x", role, log_end_offset: entries.len() as i64, high_watermark, entries, txn: None }
    }

    /// A record is acknowledged once a leader's HW covers it; it is lost when the leader's log
    /// does not hold that very record (another value or epoch at its offset counts as missing).
    #[test]
    fn acknowledged_records_are_those_below_a_leaders_hw_and_lost_when_the_leader_lacks_them() {
        let mut acked = Vec::new();
        let log = vec![e(0, 1, "m1"), e(1, 1, "m2")];
        note_acked(
            &mut acked,
            &[state(ReplicaRole::Follower, 2, log.clone()), state(ReplicaRole::Leader, 0, log.clone())],
        );
        assert!(acked.is_empty(), "a follower's HW acknowledges nothing; the leader's is 0");
        note_acked(&mut acked, &[state(ReplicaRole::Leader, 2, log.clone())]);
        note_acked(&mut acked, &[state(ReplicaRole::Leader, 2, log.clone())]);
        assert_eq!(acked, log, "each record once");
        assert!(lost_from(&acked, &log).is_empty());
        assert_eq!(lost_from(&acked, &[e(0, 2, "m4")]), log);
        assert_eq!(lost_from(&acked, &[e(0, 1, "m1"), e(1, 2, "m2")]), vec![e(1, 1, "m2")]);
    }

    /// stuck-lso, run for real: every `klog txn` step's questions take their truths from the
    /// report that follows them (the LSO, and the offsets held back while it is below the HW);
    /// the LSO is drawn only on those steps' states; the admin abort is resolved from the report
    /// as `kafka-transactions.sh abort --start-offset` resolves it (the producer with no
    /// coordinator epoch gets 0) and its marker leaves the LSO at the HW.
    #[test]
    fn stuck_lso_questions_and_the_admin_abort_come_from_klog_txns_reports() {
        let tmp = tempfile::tempdir().unwrap();
        let req = DemoRequest {
            scenario: Some("stuck-lso"),
            mode: None,
            all_modes: false,
            dir: &tmp.path().join("lab"),
            predict: true,
        };
        let mut questions: Vec<Prediction> = Vec::new();
        let mut checked = Vec::new();
        let mut aborts = Vec::new();
        let mut after_txn = false;
        let mut lso_drawn = Vec::new();
        run(&req, &mut |e| {
            match e {
                DemoEvent::Question(q) => questions.push(q.clone()),
                DemoEvent::Txn(_, r) => {
                    let (lso, hw) = (r.last_stable_offset(), r.high_watermark);
                    let truths: Vec<String> = questions.drain(..).map(|q| q.truth).collect();
                    let expected =
                        if lso < hw { vec![lso.to_string(), (hw - lso).to_string()] } else { vec![lso.to_string()] };
                    assert_eq!(truths, expected);
                    checked.push((lso, hw));
                    after_txn = true;
                }
                DemoEvent::AdminAbort(a) => aborts.push(a.clone()),
                DemoEvent::State(states, _) => {
                    let drawn = states.iter().any(|s| s.txn.as_ref().is_some_and(|v| v.last_stable_offset.is_some()));
                    lso_drawn.push((drawn, std::mem::take(&mut after_txn)));
                }
                _ => {}
            }
            Ok(())
        })
        .unwrap();
        assert!(questions.is_empty(), "no question outside a klog txn step: {questions:?}");
        assert_eq!(checked, vec![(2, 7), (2, 7), (8, 8), (8, 11), (8, 11), (12, 12)]);
        assert!(lso_drawn.iter().all(|(drawn, txn)| drawn == txn), "{lso_drawn:?}");
        assert_eq!(aborts.len(), 1);
        let a = &aborts[0];
        assert_eq!(
            (a.start_offset, a.producer_id, a.producer_epoch, a.described_coordinator_epoch, a.coordinator_epoch),
            (8, 2000, 0, -1, 0)
        );
    }

    /// The Watch's steps 1-3 are the lab preset's (two one-round fetches), then A crashes with
    /// the HW checkpoint left at 0.
    #[test]
    fn the_watch_has_two_one_round_fetches_then_crashes_a_with_hw_0() {
        let sc = scenario("watch").unwrap();
        let fetches = sc.steps.iter().filter(|s| matches!(s, Step::Fetch { rounds: 1, .. })).count();
        assert_eq!(fetches, 2);
        assert!(sc.steps.iter().any(|s| matches!(s, Step::Crash { replica: "a", hw: Some(0), .. })));
    }
}
