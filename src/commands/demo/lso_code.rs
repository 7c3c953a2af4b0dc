//! The code panel of a `klog txn` step: the lines of Kafka that compute the first unstable
//! offset and the LSO (`lso = min(first unstable offset, hw)`), copied from Kafka's source at
//! tag 3.8.0 (`ProducerStateManager.java:275-287`, `UnifiedLog.scala:425-430` and `:963`; the
//! indentation is the panel's), with the values `klog txn`'s report gives them. Pure: built
//! from the report, never from a log dir; rendered by `output::explain` like every panel.

use crate::commands::txn::TxnReport;
use crate::replication::explain::{ExplainLine, Explanation};

/// Where the lines come from.
const SOURCE: &str = "Kafka 3.8.0: ProducerStateManager.firstUnstableOffset (ProducerStateManager.java:275-287@3.8.0), \
                      read by UnifiedLog.maybeIncrementFirstUnstableOffset (UnifiedLog.scala:963@3.8.0), and \
                      UnifiedLog.lastStableOffset (UnifiedLog.scala:425-430@3.8.0): lso = min(first unstable offset, hw)";

fn line(depth: usize, code: &'static str, values: Option<String>) -> ExplainLine {
    ExplainLine { depth, code, ran: values.is_some(), values: values.into_iter().collect() }
}

/// The panel for `report`: the earliest open transaction (`ongoingTxns`), the earliest ended
/// one whose marker the HW does not cover yet (`unreplicatedTxns`), the lower of the two, and
/// the LSO against the HW.
pub fn explanation(report: &TxnReport) -> Explanation {
    let hw = report.high_watermark;
    let t = &report.transactions;
    let undecided = t.broker_open.first();
    let first_unstable = t.first_unstable_offset(hw);
    let lso = report.last_stable_offset();
    // A first unstable offset that is not the earliest open transaction's is an ended one whose
    // marker is not below the HW yet (ProducerStateManager's unreplicated transactions).
    let unreplicated = first_unstable.filter(|f| undecided.map(|u| u.first_offset) != Some(*f));
    let unreplicated_text = match (unreplicated, first_unstable) {
        (Some(u), _) => format!("{u}: a transaction ended by a marker at or above the HW {hw}"),
        (None, Some(f)) => format!("none below {f}"),
        (None, None) => "none: every marker is below the HW".to_string(),
    };
    let undecided_text = match undecided {
        Some(o) => format!("{} (producer {}: no marker yet)", o.first_offset, o.producer_id),
        None => "none: no transaction is open".to_string(),
    };
    let first_text = first_unstable.map_or("none".to_string(), |f| f.to_string());
    let below_hw = first_unstable.filter(|f| *f < hw);
    Explanation {
        title: "txn",
        source: SOURCE.to_string(),
        lines: vec![
            line(0, "public Optional<LogOffsetMetadata> firstUnstableOffset() {", None),
            line(
                1,
                "Optional<LogOffsetMetadata> unreplicatedFirstOffset = Optional.ofNullable(unreplicatedTxns.firstEntry()).map(e -> e.getValue().firstOffset);",
                Some(unreplicated_text),
            ),
            line(
                1,
                "Optional<LogOffsetMetadata> undecidedFirstOffset = Optional.ofNullable(ongoingTxns.firstEntry()).map(e -> e.getValue().firstOffset);",
                Some(undecided_text),
            ),
            line(1, "if (!unreplicatedFirstOffset.isPresent())", Some(format!("the lower of the two: {first_text}"))),
            line(2, "return undecidedFirstOffset;", None),
            line(1, "else if (!undecidedFirstOffset.isPresent())", None),
            line(2, "return unreplicatedFirstOffset;", None),
            line(1, "else if (undecidedFirstOffset.get().messageOffset < unreplicatedFirstOffset.get().messageOffset)", None),
            line(2, "return undecidedFirstOffset;", None),
            line(1, "else", None),
            line(2, "return unreplicatedFirstOffset;", None),
            line(
                0,
                "val updatedFirstUnstableOffset = producerStateManager.firstUnstableOffset.asScala match {",
                Some(format!("first unstable offset {first_text}")),
            ),
            line(0, "def lastStableOffset: Long = {", None),
            line(1, "firstUnstableOffsetMetadata match {", Some(format!("{first_text}, HW {hw}"))),
            line(
                2,
                "case Some(offsetMetadata) if offsetMetadata.messageOffset < highWatermark => offsetMetadata.messageOffset",
                below_hw.map(|f| format!("{f} < {hw}: LSO {lso}")),
            ),
            line(2, "case _ => highWatermark", below_hw.is_none().then(|| format!("LSO = HW = {lso}"))),
        ],
        notes: vec![
            "lso = min(first unstable offset, hw): a read_committed fetch returns nothing at or above the LSO.",
            "An open transaction is unstable until a COMMIT or ABORT marker ends it; an ended one until the HW \
             passes its marker (ProducerStateManager.onHighWatermarkUpdated).",
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stuck-lso demo's first `klog txn`: producer 1000's transaction from offset 2 is
    /// open, the HW 7; the panel marks the open transaction, the first unstable offset 2 and
    /// the case that makes the LSO 2.
    #[test]
    fn the_panel_of_an_open_transaction_marks_its_first_offset_and_the_lso_below_the_hw() {
        let tmp = tempfile::tempdir().unwrap();
        let req = super::super::DemoRequest {
            scenario: Some("stuck-lso"),
            mode: None,
            all_modes: false,
            dir: &tmp.path().join("lab"),
            predict: false,
        };
        let mut panels = Vec::new();
        super::super::run(&req, &mut |e| {
            if let super::super::DemoEvent::Txn(_, r) = e {
                panels.push((r.last_stable_offset(), r.high_watermark, explanation(r).ran_lines()));
            }
            Ok(())
        })
        .unwrap();
        let (lso, hw, ran) = &panels[0];
        assert_eq!((*lso, *hw), (2, 7));
        assert!(ran.iter().any(|l| l.contains("ongoingTxns") && l.contains("◀ 2 (producer 1000")), "{ran:?}");
        assert!(ran.iter().any(|l| l.contains("messageOffset < highWatermark") && l.ends_with("2 < 7: LSO 2")));
        assert!(!ran.iter().any(|l| l.starts_with("case _ => highWatermark")));
        // The abort's marker on A only: the ended transaction is unreplicated, the LSO stays 2.
        let (lso, hw, ran) = &panels[1];
        assert_eq!((*lso, *hw), (2, 7));
        assert!(ran.iter().any(|l| l.contains("unreplicatedTxns") && l.contains("◀ 2: a transaction ended")));
        // Once the HW covers the marker: nothing unstable, the LSO is the HW.
        let (lso, hw, ran) = &panels[2];
        assert_eq!((lso, hw), (&8, &8));
        assert!(ran.iter().any(|l| l.starts_with("case _ => highWatermark ") && l.ends_with("LSO = HW = 8")));
    }
}
