//! The lab's JSON on the wire: serialize-only structs, kept apart from the session's own types
//! (ripgrep's `jsont.rs`), built from a [`Lab`] for each reply. Fields are declared in the
//! order of their names, the order the page has always read them in (a map sorted by key), so
//! the bytes stay what they were when the replies were built as JSON values. Nothing here
//! decides anything: every value is read from the session or the explorer's last run.

use super::session::{self, Acked, Compare, Frame, Mark, Session, TxnFrame};
use super::Lab;
use serde::Serialize;

/// Everything the page shows (the reply to every route that succeeds).
#[derive(Serialize)]
pub struct State<'a> {
    branch_dir: String,
    branches: Vec<BranchLine<'a>>,
    compare: Option<CompareWire<'a>>,
    dir: String,
    explorer: Explorer<'a>,
    frame: FrameWire<'a>,
    next_epoch: usize,
    replicas: usize,
    script: String,
    view: View,
}

#[derive(Serialize)]
struct View {
    branch: usize,
    frame: usize,
    last: usize,
}

/// A frame by its branch and index (a branch's parent).
#[derive(Serialize)]
struct At {
    branch: usize,
    frame: usize,
}

/// One branch in the page's list of branches.
#[derive(Serialize)]
struct BranchLine<'a> {
    branch: usize,
    era: Option<&'static str>,
    frames: Vec<FrameLine<'a>>,
    parent: Option<At>,
    transactions: bool,
}

/// One frame in a branch's list.
#[derive(Serialize)]
struct FrameLine<'a> {
    command: &'a str,
    frame: usize,
    lost: usize,
    violation: bool,
}

/// The explorer: whether it runs, and its last answer.
#[derive(Serialize)]
struct Explorer<'a> {
    result: Option<ExplorerLine<'a>>,
    running: bool,
}

#[derive(Serialize)]
struct ExplorerLine<'a> {
    branch: usize,
    current: bool,
    frame: usize,
    mode: &'a str,
    outcome: &'a Outcome,
}

/// What the explorer answered for a frame.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Outcome {
    /// The frame's history left the model: why.
    NoFit { fits: bool, why: String },
    /// It searched from the frame: what it found, within which bounds, at what cost.
    Searched {
        bounds: String,
        capped: bool,
        exhaustive: bool,
        fits: bool,
        found: bool,
        mode: &'static str,
        seconds: f64,
        states: u64,
        steps: Vec<String>,
        timed_out: bool,
        violation: Option<String>,
    },
}

impl Outcome {
    pub fn no_fit(why: &str) -> Outcome {
        Outcome::NoFit { fits: false, why: why.to_string() }
    }
}

/// The viewed frame, whole.
#[derive(Serialize)]
struct FrameWire<'a> {
    acked: Vec<AckedWire>,
    code: &'a [String],
    command: &'a str,
    hint: Option<&'a str>,
    leader: Option<Leader>,
    lost: Vec<AckedWire>,
    model: Model,
    model_violation: Option<&'a str>,
    no_code: Option<&'a str>,
    note: Option<&'a str>,
    output: &'a str,
    picture: &'a str,
    recovery_picture: Option<&'a str>,
    roles: Vec<Role>,
    txn: Option<Txn>,
}

/// The model's state after a frame, or why the history left it.
#[derive(Serialize)]
#[serde(untagged)]
enum Model {
    Fits { appended: u8, epochs_issued: u8, fits: bool, isr: Vec<char> },
    NoFit { fits: bool, why: String },
}

#[derive(Serialize)]
struct AckedWire {
    offset: i64,
    value: String,
}

#[derive(Serialize)]
struct Leader {
    leader_epoch: i32,
    replica: char,
}

/// One replica's role and marks.
#[derive(Serialize)]
struct Role {
    high_watermark: i64,
    leader_epoch: Option<i32>,
    log_end_offset: i64,
    replica: char,
    role: &'static str,
}

/// A frame's LSO, HW, what holds the LSO, and the open transaction holding it.
#[derive(Serialize)]
struct Txn {
    high_watermark: i64,
    holder: String,
    last_stable_offset: i64,
    open: Option<Open>,
    replica: char,
}

/// The open transaction holding the LSO, with the line `kafka-transactions.sh abort` takes.
#[derive(Serialize)]
struct Open {
    abort_command: String,
    producer_epoch: i16,
    producer_id: i64,
    start_offset: i64,
}

/// The three eras' branches at their last frames, side by side.
#[derive(Serialize)]
struct CompareWire<'a> {
    branch: usize,
    columns: Vec<Column<'a>>,
    frame: usize,
}

/// One era's branch at its last frame.
#[derive(Serialize)]
struct Column<'a> {
    acked: Vec<AckedWire>,
    branch: usize,
    code: Vec<String>,
    command: &'a str,
    era: &'static str,
    frame: usize,
    leader: Option<Leader>,
    lost: Vec<AckedWire>,
    picture: &'a str,
    recovers: Vec<&'a str>,
    roles: Vec<Role>,
    script: String,
}

/// An error reply's body.
#[derive(Serialize)]
pub struct ErrorBody<'a> {
    pub error: &'a str,
}

fn acked(a: &[Acked]) -> Vec<AckedWire> {
    a.iter().map(|x| AckedWire { offset: x.offset, value: x.value.clone() }).collect()
}

fn leader(frame: &Frame) -> Option<Leader> {
    frame.leader.map(|(replica, leader_epoch)| Leader { leader_epoch, replica })
}

fn roles(marks: &[Mark]) -> Vec<Role> {
    marks
        .iter()
        .enumerate()
        .map(|(i, m)| Role {
            high_watermark: m.high_watermark,
            leader_epoch: m.leader_epoch,
            log_end_offset: m.log_end_offset,
            replica: session::letter(i as u8),
            role: m.role,
        })
        .collect()
}

fn txn(t: &TxnFrame) -> Txn {
    Txn {
        high_watermark: t.high_watermark,
        holder: t.holder.clone(),
        last_stable_offset: t.last_stable_offset,
        open: t.abort.as_ref().map(|a| Open {
            abort_command: crate::output::transactions::abort_command(&a.topic, a.partition, a.start_offset),
            producer_epoch: a.producer_epoch,
            producer_id: a.producer_id,
            start_offset: a.start_offset,
        }),
        replica: t.replica,
    }
}

fn model(frame: &Frame, replicas: usize) -> Model {
    match &frame.model {
        Ok(m) => Model::Fits {
            appended: m.appended,
            epochs_issued: m.epochs_issued,
            fits: true,
            isr: (0..replicas as u8).filter(|i| m.isr & (1 << i) != 0).map(session::letter).collect(),
        },
        Err(why) => Model::NoFit { fits: false, why: why.clone() },
    }
}

/// The three eras' branches at their last frames, each with its last recovery's code panel.
fn compare<'a>(s: &'a Session, c: &Compare) -> CompareWire<'a> {
    let columns = c
        .branches
        .iter()
        .map(|&(era, b)| {
            let br = &s.branches[b];
            let f = br.frames.len() - 1;
            let frame = &br.frames[f];
            let recovers =
                br.steps.iter().zip(&br.frames[1..]).filter(|(st, _)| st.recovers()).map(|(_, fr)| fr.command.as_str());
            // The era's last recovery: its code panel with the lines that ran, beside the picture.
            let recovery = br.steps.iter().zip(&br.frames[1..]).rev().find(|(st, _)| st.recovers()).map(|(_, fr)| fr);
            Column {
                acked: acked(&frame.acked),
                branch: b,
                code: recovery.map_or(Vec::new(), |fr| fr.code.clone()),
                command: &frame.command,
                era: era.name(),
                frame: f,
                leader: leader(frame),
                lost: acked(&frame.lost),
                picture: &frame.picture,
                recovers: recovers.collect(),
                roles: roles(&frame.roles),
                script: s.script_of(b, f),
            }
        })
        .collect();
    CompareWire { branch: c.at.0, columns, frame: c.at.1 }
}

fn frame_wire(frame: &Frame, replicas: usize) -> FrameWire<'_> {
    FrameWire {
        acked: acked(&frame.acked),
        code: &frame.code,
        command: &frame.command,
        hint: frame.hint.as_deref(),
        leader: leader(frame),
        lost: acked(&frame.lost),
        model: model(frame, replicas),
        model_violation: frame.model_violation.as_deref(),
        no_code: frame.no_code.as_deref(),
        note: frame.note.as_deref(),
        output: &frame.output,
        picture: &frame.picture,
        recovery_picture: frame.recovery_picture.as_deref(),
        roles: roles(&frame.roles),
        txn: frame.txn.as_ref().map(txn),
    }
}

/// Everything the page shows, serialized: the reply to every route that succeeds.
pub fn state_body(lab: &Lab) -> String {
    let ex = lab.explorer.lock().unwrap_or_else(|e| e.into_inner());
    let s = &lab.session;
    let (b, f) = s.view;
    let branches = s
        .branches
        .iter()
        .enumerate()
        .map(|(i, br)| BranchLine {
            branch: i,
            era: br.era.map(|e| e.name()),
            frames: br
                .frames
                .iter()
                .enumerate()
                .map(|(k, fr)| FrameLine {
                    command: &fr.command,
                    frame: k,
                    lost: fr.lost.len(),
                    violation: fr.model_violation.is_some(),
                })
                .collect(),
            parent: br.parent.map(|(branch, frame)| At { branch, frame }),
            transactions: br.transactions,
        })
        .collect();
    let explorer = Explorer {
        result: ex.result.as_ref().map(|((rb, rf, mode), outcome, _)| ExplorerLine {
            branch: *rb,
            current: *rb == b && *rf == f,
            frame: *rf,
            mode,
            outcome,
        }),
        running: ex.running,
    };
    let state = State {
        branch_dir: s.branches[b].dir.display().to_string(),
        branches,
        compare: s.compare.as_ref().map(|c| compare(s, c)),
        dir: s.root.display().to_string(),
        explorer,
        frame: frame_wire(s.frame(), s.replicas),
        next_epoch: s.next_epoch(),
        replicas: s.replicas,
        script: s.script(),
        view: View { branch: b, frame: f, last: s.branches[b].frames.len() - 1 },
    };
    body(&state)
}

/// `value` as JSON: the lab's wire structs hold strings, numbers, options and lists only, which
/// always serialize.
pub fn body<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("the lab's wire structs always serialize")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_state_of_the_stuck_lso_preset_carries_its_lso_the_open_transaction_and_no_model() {
        let tmp = tempfile::tempdir().unwrap();
        let mut lab = Lab { session: Session::new(&tmp.path().join("lab"), 2).unwrap(), explorer: Arc::default() };
        lab.session.preset_stuck_lso().unwrap();
        lab.explorer.lock().unwrap().result = Some(((0, 1, "hw".into()), Outcome::no_fit("no model"), Vec::new()));
        let v: serde_json::Value = serde_json::from_str(&state_body(&lab)).unwrap();
        let frame = &v["frame"];
        let txn = &frame["txn"];
        assert_eq!(txn["replica"], "a");
        assert!(txn["last_stable_offset"].as_i64().unwrap() < txn["high_watermark"].as_i64().unwrap(), "{txn}");
        assert_eq!(txn["open"]["producer_id"], 1000);
        assert!(txn["open"]["abort_command"].as_str().unwrap().contains("kafka-transactions.sh"), "{txn}");
        assert_eq!(frame["model"]["fits"], false);
        assert_eq!(frame["model"]["why"], session::NO_MODEL_FOR_TRANSACTIONS);
        assert_eq!(frame["leader"]["replica"], "a");
        assert_eq!(frame["roles"][1]["replica"], "b");
        assert_eq!(v["replicas"], 2);
        assert_eq!(v["view"]["last"], v["view"]["frame"]);
        assert_eq!(v["branches"][1]["transactions"], true);
        assert!(v["compare"].is_null());
        assert_eq!(v["explorer"]["running"], false);
        let outcome = &v["explorer"]["result"]["outcome"];
        assert_eq!(
            (&outcome["fits"], &outcome["why"], outcome.as_object().map(|o| o.len())),
            (&false.into(), &"no model".into(), Some(2))
        );
        assert_eq!(v["explorer"]["result"]["current"], false);
    }

    #[test]
    fn an_error_body_is_one_object_with_its_reason_escaped() {
        assert_eq!(body(&ErrorBody { error: "bad \"x\"\n" }), r#"{"error":"bad \"x\"\n"}"#);
    }
}
