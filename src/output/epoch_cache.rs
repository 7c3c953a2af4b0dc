//! How klog's text writes a leader-epoch cache: one notation everywhere, `(leader-epoch
//! start-offset)` per entry, a cache as its entries in brackets (`[(0 0) (2 5)]`, `[]` when
//! empty), and [`KEY`] beside the first one a screen shows. The epoch comes first, as in
//! Kafka's `leader-epoch-checkpoint` lines (`0 0`).

/// What an entry's two numbers are, said where a screen first shows one.
pub const KEY: &str = "(leader-epoch start-offset)";

/// One entry: `(2 5)`.
pub fn entry(leader_epoch: i32, start_offset: i64) -> String {
    format!("({leader_epoch} {start_offset})")
}

/// A whole cache: `[(0 0) (2 5)]`, or `[]`.
pub fn entries(cache: impl IntoIterator<Item = (i32, i64)>) -> String {
    let shown: Vec<String> = cache.into_iter().map(|(e, o)| entry(e, o)).collect();
    format!("[{}]", shown.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_is_its_entries_epoch_first_in_brackets() {
        assert_eq!(entry(2, 5), "(2 5)");
        assert_eq!(entries([(0, 0), (2, 5)]), "[(0 0) (2 5)]");
        assert_eq!(entries([]), "[]");
    }
}
