//! `klog txn --format kafka`: the tables `kafka-transactions.sh` prints, so a script written
//! against the tool reads klog's answer from copies of the dirs. The table shape is the tool's
//! `ToolsUtils.prettyPrintTable` (3.x/4.x): every cell, the headers' too, padded with spaces
//! to its column's width and followed by a tab.
//!
//! - `describe-producers --topic T --partition P`: the producer table of a broker that loaded
//!   the partition (snapshot, then the batches after it), in its map's order, as
//!   DescribeProducers answers with it.
//! - `find-hanging`: the rows [`crate::txn::find_hanging`] finds (the open transactions whose
//!   last write is older than `--max-transaction-timeout` and which the coordinator's log among
//!   the dirs does not expect), in the order it gives them. This file lays them out and
//!   decides nothing.

use crate::commands::txn::{DataDirsTxn, TxnReport};
use crate::error::{IoContext, Result};
use crate::format::producer_snapshot::ProducerEntry;
use crate::txn::find_hanging::Hanging;
use std::io::Write;

const DESCRIBE_PRODUCERS: [&str; 6] = [
    "ProducerId",
    "ProducerEpoch",
    "LatestCoordinatorEpoch",
    "LastSequence",
    "LastTimestamp",
    "CurrentTransactionStartOffset",
];

const FIND_HANGING: [&str; 8] = [
    "Topic",
    "Partition",
    "ProducerId",
    "ProducerEpoch",
    "CoordinatorEpoch",
    "StartOffset",
    "LastTimestamp",
    "Duration(min)",
];

/// `ToolsUtils.prettyPrintTable`.
pub fn pretty_print_table(out: &mut dyn Write, headers: &[&str], rows: &[Vec<String>]) -> Result<()> {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut line = |cells: &mut dyn Iterator<Item = &str>| -> Result<()> {
        let mut s = String::new();
        for (cell, w) in cells.zip(&widths) {
            s.push_str(cell);
            s.extend(std::iter::repeat_n(' ', w - cell.chars().count()));
            s.push('\t');
        }
        writeln!(out, "{s}").at("<stdout>", "write")
    };
    line(&mut headers.iter().copied())?;
    for row in rows {
        line(&mut row.iter().map(String::as_str))?;
    }
    Ok(())
}

/// One producer's describe-producers row (an unknown coordinator epoch is -1, no open
/// transaction `None`).
fn producer_row(e: &ProducerEntry) -> Vec<String> {
    vec![
        e.producer_id.to_string(),
        e.producer_epoch.to_string(),
        e.coordinator_epoch.to_string(),
        e.last_sequence.to_string(),
        e.timestamp.to_string(),
        if e.current_txn_first_offset >= 0 { e.current_txn_first_offset.to_string() } else { "None".into() },
    ]
}

/// `describe-producers` for one partition.
pub fn describe_producers(out: &mut dyn Write, r: &TxnReport) -> Result<()> {
    let rows: Vec<Vec<String>> = r.transactions.broker_producers().iter().map(producer_row).collect();
    pretty_print_table(out, &DESCRIBE_PRODUCERS, &rows)
}

/// The data-dir form: each partition that has producers, under a `#` line naming it and its
/// dir; then find-hanging's table (`hanging`, found with `max_timeout_minutes`) when the dirs
/// hold the coordinator's log.
pub fn data_dirs(out: &mut dyn Write, r: &DataDirsTxn, hanging: &[Hanging], max_timeout_minutes: u32) -> Result<()> {
    for d in &r.dirs {
        for (name, rep) in &d.partitions {
            match rep {
                Ok(t) if !t.transactions.broker_producers().is_empty() => {
                    writeln!(
                        out,
                        "# {}: describe-producers --topic {} --partition {}",
                        d.dir, t.summary.topic, t.summary.partition
                    )
                    .at("<stdout>", "write")?;
                    describe_producers(out, t)?;
                }
                Ok(_) => {}
                Err(e) => writeln!(out, "# {}: {name}: unreadable: {e}", d.dir).at("<stdout>", "write")?,
            }
        }
    }
    if r.coordinator_logs.is_empty() {
        return writeln!(out, "# find-hanging: no __transaction_state partition among the dirs")
            .at("<stdout>", "write");
    }
    writeln!(out, "# find-hanging --max-transaction-timeout {max_timeout_minutes}").at("<stdout>", "write")?;
    let rows: Vec<Vec<String>> = hanging
        .iter()
        .map(|h| {
            vec![
                h.topic.clone(),
                h.partition.to_string(),
                h.entry.producer_id.to_string(),
                h.entry.producer_epoch.to_string(),
                h.entry.coordinator_epoch.to_string(),
                h.entry.current_txn_first_offset.to_string(),
                h.entry.timestamp.to_string(),
                h.duration_minutes.to_string(),
            ]
        })
        .collect();
    pretty_print_table(out, &FIND_HANGING, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_pad_every_cell_to_its_column_and_end_each_with_a_tab() {
        let mut out = Vec::new();
        pretty_print_table(&mut out, &["A", "Bee"], &[vec!["100".into(), "x".into()]]).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "A  \tBee\t\n100\tx  \t\n");
    }
}
