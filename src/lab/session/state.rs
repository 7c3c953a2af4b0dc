//! What the lab holds: a session's branches of frames, each frame what the page shows after
//! one step (the pictures, klog's output, the code that ran, the model's state, the acked and
//! lost records, each replica's marks), and the three-era comparison.

use super::*;

/// An acknowledged record: below a running leader's HW at some frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acked {
    pub offset: i64,
    pub value: String,
}

/// What the page shows of one frame.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The command line that made it (`"$LAB/x"` for replicas); the creates for frame 0.
    pub command: String,
    /// What klog printed.
    pub output: String,
    /// The replicas as `klog draw` pictures them (inline SVG).
    pub picture: String,
    /// A follower recovery's before/after picture with each record's fate (inline SVG).
    pub recovery_picture: Option<String>,
    /// The code panels of the procedures that ran (HTML), or why there is none.
    pub code: Vec<String>,
    pub no_code: Option<String>,
    /// The model after this frame, or why the history left it.
    pub model: std::result::Result<State, String>,
    /// The model's invariant this step broke, in words.
    pub model_violation: Option<String>,
    /// Every record acknowledged so far (on disk: below a running leader's HW).
    pub acked: Vec<Acked>,
    /// The acknowledged records the current leader does not hold at their offset.
    pub lost: Vec<Acked>,
    /// The current leader (letter) and its epoch.
    pub leader: Option<(char, i32)>,
    /// Each replica's role, epoch and marks.
    pub roles: Vec<Mark>,
    /// What to watch for from here (a preset's last frame).
    pub hint: Option<String>,
    /// What the scene says of the step that made it (a [`LineStep`]'s note).
    pub note: Option<String>,
    /// On a branch with transactions: the LSO and what holds it.
    pub txn: Option<TxnFrame>,
}

/// What a frame of a branch with transactions shows of them, read from `klog txn`'s report on
/// the leader (on `a` while none leads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnFrame {
    pub replica: char,
    pub last_stable_offset: i64,
    pub high_watermark: i64,
    /// What holds the LSO, in words ([`stuck_lso::what_holds_the_lso`]).
    pub holder: String,
    /// The admin abort of the transaction holding the LSO, while one is open.
    pub abort: Option<AbortSpec>,
}

/// One replica as a frame shows it: its role (leader, follower, crashed, ...), the epoch it
/// works in, its HW and its LEO.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub role: &'static str,
    pub leader_epoch: Option<i32>,
    pub high_watermark: i64,
    pub log_end_offset: i64,
}

#[derive(Debug, Clone)]
pub struct Branch {
    pub dir: PathBuf,
    /// Where it forked from: (branch, frame).
    pub parent: Option<(usize, usize)>,
    pub steps: Vec<LabStep>,
    /// `frames[0]` after the creates, `frames[i]` after `steps[i - 1]`.
    pub frames: Vec<Frame>,
    /// The epoch of its first election (the model's epochs issued before it): 0, or 1 for the
    /// Watch preset, whose leader starts at epoch 1 as the Watch does.
    pub first_epoch: u8,
    /// The era every recover of this branch runs under, when it was forked for a comparison.
    pub era: Option<TruncationMode>,
    /// Whether it holds [`LineStep`]s (the stuck-lso scene): every frame then shows the
    /// transactions and the LSO, and the explorer is off.
    pub transactions: bool,
    /// Whether its replicas were made with a remote tier (`create --remote-dir "$LAB/remote"`,
    /// the tiers scene): every frame then draws both tiers.
    pub tiered: bool,
}

/// Three branches forked from one frame, one per era, shown side by side.
#[derive(Debug, Clone)]
pub struct Compare {
    /// The frame compared: (branch, frame).
    pub at: (usize, usize),
    pub branches: Vec<(TruncationMode, usize)>,
}

/// The eras a comparison forks into, oldest first.
pub const ERAS: [TruncationMode; 3] = [TruncationMode::Hw, TruncationMode::Kip101, TruncationMode::Kip279];

pub struct Session {
    pub root: PathBuf,
    pub replicas: usize,
    pub branches: Vec<Branch>,
    /// What the page views: (branch, frame).
    pub view: (usize, usize),
    /// The latest three-era comparison.
    pub compare: Option<Compare>,
}
