//! Reading a frame from the replica dirs after a step: the picture, the acked and lost records,
//! the roles and the LSO; and the model's transition kept in step with the commands.

use super::*;

/// The replicas' picture and the acked/lost verdict, read from the dirs.
pub(super) struct Look {
    pub(super) picture: String,
    pub(super) acked: Vec<Acked>,
    pub(super) lost: Vec<Acked>,
    pub(super) leader: Option<(char, i32)>,
    pub(super) roles: Vec<Mark>,
    pub(super) txn: Option<TxnFrame>,
}

/// Each replica's `klog txn` report and the demo's view of its transactions (every batch's
/// place and the LSO), by letter.
pub(super) fn txn_views(dirs: &[PathBuf]) -> Result<Vec<(String, commands::txn::TxnReport, TxnView)>> {
    let mut out = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        let report = commands::txn::run(dir, None)?;
        let mut view =
            stuck_lso::txn_view(dir, &report)?.unwrap_or(TxnView { last_stable_offset: None, batches: Vec::new() });
        view.last_stable_offset = Some(report.last_stable_offset());
        out.push((letter(i as u8).to_string(), report, view));
    }
    Ok(out)
}

pub(super) fn look(
    dir: &Path,
    replicas: usize,
    acked_before: &[Acked],
    transactions: bool,
    tiered: bool,
) -> Result<Look> {
    let dirs: Vec<PathBuf> = (0..replicas as u8).map(|i| dir.join(letter(i).to_string())).collect();
    let report =
        commands::draw::run(&DrawRequest { dirs: &dirs, partition: None, from: Some(0), limit: DRAWN_OFFSETS })?;
    let mut pic = Picture::of_draw(&report);
    let txns = if transactions { txn_views(&dirs)? } else { Vec::new() };
    let views: Vec<(&str, &TxnView)> = txns.iter().map(|(name, _, view)| (name.as_str(), view)).collect();
    crate::output::txn_picture::overlay_views(&mut pic, &views);
    if tiered {
        if let Some(view) = crate::commands::demo::tiers::tier_view(dir)? {
            crate::output::tier_picture::overlay(&mut pic, &view);
        }
    }
    let picture = svg::render(&pic, false);
    let value = |r: &commands::draw::DrawnRecord| r.value.as_deref().map(|v| String::from_utf8_lossy(v).into_owned());
    let mut acked = acked_before.to_vec();
    // A transaction marker is a control record the leader wrote, not a record a producer had
    // acknowledged: it is not counted (nor its control bytes shown as a value).
    let is_marker = |name: &str, offset: i64| {
        txns.iter().filter(|(n, _, _)| n == name).flat_map(|(_, _, v)| &v.batches).any(|b| {
            matches!(b.kind, stuck_lso::TxnKind::Marker { .. }) && (b.base_offset..=b.last_offset).contains(&offset)
        })
    };
    for r in report.replicas.iter().filter(|r| r.role == crate::replica::ReplicaRole::Leader) {
        for rec in r.records.iter().filter(|rec| rec.offset < r.high_watermark && !is_marker(&r.name, rec.offset)) {
            let a = Acked { offset: rec.offset, value: value(rec).unwrap_or_default() };
            if !acked.contains(&a) {
                acked.push(a);
            }
        }
    }
    acked.sort_by(|x, y| (x.offset, &x.value).cmp(&(y.offset, &y.value)));
    let leader = report
        .replicas
        .iter()
        .enumerate()
        .filter(|(_, r)| r.role == crate::replica::ReplicaRole::Leader)
        .max_by_key(|(_, r)| r.leader_epoch)
        .map(|(i, r)| (i, r.leader_epoch.unwrap_or(-1)));
    let lost = lost_by(dir, &report, leader.map(|(i, _)| i), &acked, tiered)?;
    let roles = report
        .replicas
        .iter()
        .map(|r| Mark {
            role: r.role.name(),
            leader_epoch: r.leader_epoch,
            high_watermark: r.high_watermark,
            log_end_offset: r.log_end_offset,
        })
        .collect();
    let txn = txns.get(leader.map_or(0, |(i, _)| i)).map(|(name, r, _)| TxnFrame {
        replica: name.chars().next().unwrap_or('a'),
        last_stable_offset: r.last_stable_offset(),
        high_watermark: r.high_watermark,
        holder: stuck_lso::what_holds_the_lso(r),
        abort: stuck_lso::abort_spec(r),
    });
    Ok(Look { picture, acked, lost, leader: leader.map(|(i, e)| (letter(i as u8), e)), roles, txn })
}

/// The acknowledged records the current leader (`leader`: its index in the report) no longer
/// holds.
pub(super) fn lost_by(
    dir: &Path,
    report: &commands::draw::DrawReport,
    leader: Option<usize>,
    acked: &[Acked],
    tiered: bool,
) -> Result<Vec<Acked>> {
    let value = |r: &commands::draw::DrawnRecord| r.value.as_deref().map(|v| String::from_utf8_lossy(v).into_owned());
    Ok(match leader {
        // Across tiers the leader holds what it serves: its remote segments within its lineage
        // and its local log.
        Some(i) if tiered => {
            let served = crate::commands::demo::tiers::served_entries(dir, &report.replicas[i].name)?;
            acked
                .iter()
                .filter(|a| !served.iter().any(|e| e.offset == a.offset && e.value == a.value))
                .cloned()
                .collect()
        }
        Some(i) => {
            let records = &report.replicas[i].records;
            acked
                .iter()
                .filter(|a| {
                    records.iter().find(|r| r.offset == a.offset).and_then(value).as_deref() != Some(a.value.as_str())
                })
                .cloned()
                .collect()
        }
        None => Vec::new(),
    })
}

/// A model violation in words.
pub fn violation_text(v: &Violation) -> String {
    match *v {
        Violation::AckedLoss { value, offset, leader, leader_epoch, found } => format!(
            "acked {} (offset {offset}) is missing from {}'s log when it leads at epoch {leader_epoch}{}",
            script::value_name(value),
            letter(leader),
            found.map_or(String::new(), |r| format!(" (it holds {} there)", script::value_name(r.value)))
        ),
        Violation::Divergence { offset, a, b, rec_a, rec_b } => format!(
            "{} and {} hold different records at offset {offset} below both HWs ({} e{}, {} e{})",
            letter(a),
            letter(b),
            script::value_name(rec_a.value),
            rec_a.leader_epoch,
            script::value_name(rec_b.value),
            rec_b.leader_epoch
        ),
    }
}

/// The model's next state after `step`, or why the step leaves it.
pub(super) fn model_step(
    model: &std::result::Result<State, String>,
    step: &LabStep,
    index: usize,
    replicas: usize,
) -> (std::result::Result<State, String>, Option<String>) {
    let mut state = match model {
        Ok(s) => *s,
        Err(why) => return (Err(why.clone()), None),
    };
    let step = match step {
        LabStep::Model(s) => s,
        LabStep::Line(l) if l.kind == LineKind::Tiers => return (Err(NO_MODEL_FOR_TIERS.to_string()), None),
        LabStep::Line(_) => return (Err(NO_MODEL_FOR_TRANSACTIONS.to_string()), None),
    };
    let cfg = step.config(replicas);
    let mut offered = Vec::new();
    let mut broke = None;
    for action in step.model_actions() {
        state.successors(&cfg, &mut offered);
        let fits = offered.contains(&action)
            || match action {
                // A power cut with nothing unflushed is a clean crash.
                Action::Crash { replica, power_loss: true, hw } => {
                    offered.contains(&Action::Crash { replica, power_loss: false, hw })
                }
                _ => false,
            };
        if !fits {
            let why = match action {
                Action::Append { .. } if state.appended as usize >= MAX_RECORDS => {
                    format!("the explorer's model holds at most {MAX_RECORDS} records")
                }
                Action::Elect { .. } if state.epochs_issued as usize >= MAX_EPOCHS => {
                    format!("the explorer's model issues at most {MAX_EPOCHS} epochs")
                }
                _ => "it is not an action the explorer's controller takes in that state (a leader that is not \
                      the latest, a replica outside the ISR, a crashed or not-yet-told replica, ...)"
                    .to_string(),
            };
            return (Err(format!("step {} ({}) does not fit: {why}", index + 1, step.command(replicas))), None);
        }
        let (next, violation) = state.apply(&cfg, action);
        state = next;
        broke = broke.or(violation);
    }
    (Ok(state), broke.as_ref().map(violation_text))
}

/// What a step needs that it lacks before it runs (the lab's own bounds).
pub(super) fn check_bounds(branch: &Branch, upto: usize, step: &LabStep) -> Result<()> {
    if upto >= MAX_STEPS {
        return Err(Error::Usage(format!("lab: a branch holds at most {MAX_STEPS} steps")));
    }
    let appended: usize = branch.steps[..upto].iter().map(LabStep::appended).sum();
    if step.appended() > 0 && appended + step.appended() > MAX_LAB_RECORDS {
        return Err(Error::Usage(format!("lab: a branch appends at most {MAX_LAB_RECORDS} records")));
    }
    Ok(())
}
