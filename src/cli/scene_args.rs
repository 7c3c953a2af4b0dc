//! The flags of the scenes and the fronts: `demo`, `explore`, `lab`, `generate`.

use super::*;

#[derive(Debug, Subcommand)]
pub enum GenerateCommand {
    /// Write klog.1 and one page per subcommand into DIR.
    Man {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Print the completion script for SHELL.
    Completions {
        #[arg(value_enum, value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// watch, kip101-1, kip101-2, kip279, stuck-lso or tiers (default: kip101-1).
    ///
    /// stuck-lso is about transactions, not truncation: producers die mid-transaction, and what
    /// holds the last stable offset, and what frees it, is the scenario's question (the
    /// coordinator's timeout, or `kafka-transactions.sh abort`); it takes no --mode.
    ///
    /// tiers runs Kafka 4.4's rules on a lab with a remote tier (KIP-405): a follower restarts
    /// below the leader's local log start, then an unclean election while the old leader's
    /// segments sit in remote storage; it takes no --mode.
    #[arg(value_name = "SCENARIO", value_parser = clap::builder::PossibleValuesParser::new(commands::demo::SCENARIO_NAMES))]
    pub scenario: Option<String>,
    /// Truncation mode(s) to run the scenario under (default: hw and kip101; kip101 and kip279
    /// for the kip279 scenario).
    #[arg(long, value_enum, ignore_case = true)]
    pub mode: Option<DemoMode>,
    /// Run in this (empty or absent) directory instead of a temp dir.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Keep the temp dir (its path is printed).
    #[arg(long)]
    pub keep: bool,
    /// Stop before each step whose outcome the scenario is about, ask what will happen, read
    /// the answer from stdin, then show the truth and why; end with a score.
    ///
    /// Answers are read one line each, so a file or a pipe works; at the end of input every
    /// remaining question is revealed unanswered.
    #[arg(long)]
    pub predict: bool,
    /// Pause before each step until Enter (a line on stdin); at the end of input the rest runs
    /// without pausing. `--predict` already pauses at each question.
    #[arg(long, conflicts_with = "predict")]
    pub step: bool,
    /// After each step, the procedure that ran (election, append, fetch round, recovery), in
    /// klog's words, with the lines that ran marked and the values they saw.
    #[arg(long)]
    pub explain: bool,
    /// Also write the run as one self-contained HTML filmstrip (one frame per step, stepped
    /// with the arrow keys or a slider; `FILE#step=N` opens frame N).
    #[arg(long, value_name = "FILE")]
    pub capture: Option<PathBuf>,
    /// Replace an existing file at --capture FILE that is not klog's own filmstrip output (never inside a
    /// Kafka log dir).
    #[arg(long)]
    pub force: bool,
    /// Show each replica as one `offset:(epoch,value)` line instead of the picture.
    #[arg(long)]
    pub plain: bool,
}

#[derive(Debug, Args)]
pub struct ExploreArgs {
    /// Truncation mode(s) to explore, each by the rules of its era's last release (hw: 0.10.2.2,
    /// kip101: 1.1.1, kip279: the newest).
    #[arg(long, value_enum, ignore_case = true, default_value_t = DemoMode::All)]
    pub mode: DemoMode,
    /// Explore one Kafka release's rules instead, X.Y[.Z] (0.A.B[.C] on the 0.x line).
    ///
    /// `X.Y.Z,ibp=IBP` runs the release on an older inter.broker.protocol.version (a line such
    /// as 2.0, or an IV such as 2.7-IV1): below 2.7-IV1 no truncation on fetch, below 2.1-IV2 no
    /// KIP-320 fencing, below 2.0-IV0 OffsetsForLeaderEpoch v0 (KIP-101), below 0.11.0-IV2 the
    /// HW. Releases before 2.1, or on an IBP below 2.1-IV2, are unfenced as if --no-fencing
    /// (on 2.1-IV1 a follower told of an election before its leader is still answered
    /// UNKNOWN_LEADER_EPOCH). With --unclean, 0.11.0 to 2.0.0 run with
    /// unclean.leader.election.enable true.
    #[arg(long, value_name = "RELEASE[,ibp=IBP]", conflicts_with = "mode", value_parser = parse_kafka)]
    pub kafka: Option<Rules>,
    /// Number of replicas (2 or 3).
    #[arg(allow_negative_numbers = true, long, default_value_t = commands::explore::DEFAULT_REPLICAS as u8, value_name = "N",
          value_parser = ranged::<u8>(2, 3, "the explorer models 2 or 3 replicas"))]
    pub replicas: u8,
    /// Most elections in a history (epochs 0 .. E-1).
    #[arg(allow_negative_numbers = true, long, default_value_t = commands::explore::DEFAULT_MAX_EPOCHS, value_name = "E",
          value_parser = ranged::<u8>(1, crate::explore::model::MAX_EPOCHS as i128, "a state holds at most 8 epochs"))]
    pub max_epochs: u8,
    /// Most records appended in a history.
    #[arg(allow_negative_numbers = true, long, default_value_t = commands::explore::DEFAULT_MAX_RECORDS, value_name = "R",
          value_parser = ranged::<u8>(1, crate::explore::model::MAX_RECORDS as i128 - 1, "a log holds at most 7 records here"))]
    pub max_records: u8,
    /// Most actions in a history (the depth of the search).
    #[arg(allow_negative_numbers = true, long, default_value_t = commands::explore::DEFAULT_MAX_DEPTH, value_name = "D",
          value_parser = ranged::<u32>(1, 64, "deeper than 64 actions is beyond any machine here"))]
    pub max_depth: u32,
    /// Elections may also pick a live replica outside the ISR (on Kafka 4.x: the admin's
    /// unclean election, for a partition with no leader).
    #[arg(long)]
    pub unclean: bool,
    /// Replicas are not fenced by the epochs they have seen (Kafka before KIP-320's
    /// FENCED_LEADER_EPOCH; the scripts use `recover --no-fencing`, `fetch --no-fencing`). A
    /// running replica still ignores a leader change not above its epoch, as every release does;
    /// an election may reach a follower before its leader, which answers from its older state
    /// (the stale receiver; scripts use `recover --leader-epoch E --told-first`).
    #[arg(long)]
    pub no_fencing: bool,
    /// Crashes may also drop unflushed bytes; flush becomes an action.
    #[arg(long)]
    pub power_loss: bool,
    /// A crash leaves the HW last checkpointed, not the live one: a broker writes
    /// replication-offset-checkpoint every 5 s, and the checkpoint becomes an action (the
    /// scripts use `crash --hw N`).
    #[arg(long)]
    pub stale_hw: bool,
    /// The topic's min.insync.replicas: a leader appends only with an ISR that large, itself
    /// included, and its HW waits while the ISR is smaller (from Kafka 3.7; on 4.x the KRaft
    /// controller also fills Eligible Leader Replicas below it).
    #[arg(allow_negative_numbers = true, long, default_value_t = 1, value_name = "N",
          value_parser = ranged::<u8>(1, 3, "the explorer models at most 3 replicas"))]
    pub min_isr: u8,
    /// Kafka 4.x: Eligible Leader Replicas (KIP-966) on or off. Default: as a new cluster of the
    /// release has them (off on 4.0, on from 4.1).
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    pub elr: Option<bool>,
    /// Tiered storage (KIP-405) by Kafka 4.4's rules: log starts, remote segments, `tier copy`
    /// and `tier retain --local-retention-bytes 1` as actions, a follower rebuilt from remote;
    /// the loss looked for is an acked record a new leader serves from neither tier (an unclean
    /// election's own loss is accepted). Runs Kafka 4.4.0's rules (--kafka 4.4 only).
    #[arg(long, conflicts_with = "mode")]
    pub tiered: bool,
    /// Stop a search after this many distinct states (it then says so). Default: 25,000,000,
    /// or as many as the memory this process may use holds (about 256 bytes a state); a cap
    /// above that is refused before the search.
    #[arg(allow_negative_numbers = true, long, value_name = "N", value_parser = ranged::<u64>(1, I64_MAX, "a count"))]
    pub max_states: Option<u64>,
    /// Write each counterexample as a runnable bash script to FILE (FILE-<mode>.ext for several
    /// modes).
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Replace an existing file at --script FILE that is not klog's own script output (never inside a
    /// Kafka log dir).
    #[arg(long)]
    pub force: bool,
    /// Write everything as one JSON document.
    #[arg(long)]
    pub json: bool,
    /// Leave the seconds and states per second out of the text (for output compared byte for
    /// byte, as the golden tests do).
    #[arg(long, hide = true)]
    pub no_timing: bool,
}

impl<'a> From<&'a ExploreArgs> for commands::explore::ExploreRequest<'a> {
    fn from(a: &'a ExploreArgs) -> Self {
        let modes = match a.mode {
            DemoMode::Hw => vec![TruncationMode::Hw],
            DemoMode::Kip101 => vec![TruncationMode::Kip101],
            DemoMode::Kip279 => vec![TruncationMode::Kip279],
            DemoMode::All => TruncationMode::ALL.to_vec(),
        };
        let runs = match a.kafka {
            Some(rules) => vec![rules],
            None if a.tiered => vec![commands::explore::tiered_rules()],
            None => modes.into_iter().map(Rules::of_mode).collect(),
        };
        commands::explore::ExploreRequest {
            runs,
            replicas: a.replicas as usize,
            max_epochs: a.max_epochs,
            max_records: a.max_records,
            max_depth: a.max_depth,
            unclean: a.unclean,
            // KIP-320 only where the release and its IBP have it (Fetch v10, IBP 2.1-IV2).
            fencing: !a.no_fencing && a.kafka.is_none_or(|r| r.fetch_fencing),
            power_loss: a.power_loss,
            stale_hw: a.stale_hw,
            min_isr: a.min_isr,
            elr: a.elr,
            tiered: a.tiered,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_states: a.max_states,
            script: a.script.as_deref(),
            force: a.force,
        }
    }
}

#[derive(Debug, Args)]
pub struct LabArgs {
    /// The lab dir: an empty or absent directory klog makes (default: a new temp dir, printed).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The port on 127.0.0.1 (0: a random free one).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub port: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DemoMode {
    Hw,
    Kip101,
    Kip279,
    /// All three, one after another.
    All,
}

impl DemoArgs {
    /// The lab root (`--dir`, or a fresh name under `temp_dir`) and whether it is temporary.
    pub fn lab(&self, temp_dir: &Path) -> (PathBuf, bool) {
        match &self.dir {
            Some(d) => (d.clone(), false),
            None => {
                let nanos =
                    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
                (temp_dir.join(format!("klog-demo-{}-{nanos}", std::process::id())), true)
            }
        }
    }

    /// The request, refusing `--mode` for a scenario that has no truncation step.
    pub fn request<'a>(&'a self, root: &'a Path) -> Result<commands::demo::DemoRequest<'a>> {
        let scenario = self.scenario.as_deref().unwrap_or("kip101-1");
        if self.mode.is_some() && !commands::demo::scenario(scenario).is_some_and(|s| s.uses_mode) {
            // tiers truncates, but only under Kafka 4.4's rules (remote storage came in 3.6).
            let why = if scenario == "tiers" {
                "runs Kafka 4.4's rules only (a remote tier needs 3.6 or later)"
            } else {
                "has no truncation step"
            };
            return Err(Error::Usage(format!(
                "--mode: the {scenario} scenario {why}, so no mode applies (modes apply to watch, kip101-1, \
                 kip101-2 and kip279)"
            )));
        }
        let (mode, all_modes) = match self.mode {
            None => (None, false),
            Some(DemoMode::All) => (None, true),
            Some(DemoMode::Hw) => (Some(TruncationMode::Hw), false),
            Some(DemoMode::Kip101) => (Some(TruncationMode::Kip101), false),
            Some(DemoMode::Kip279) => (Some(TruncationMode::Kip279), false),
        };
        Ok(commands::demo::DemoRequest {
            scenario: self.scenario.as_deref(),
            mode,
            all_modes,
            dir: root,
            predict: self.predict,
        })
    }
}
