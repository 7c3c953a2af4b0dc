//! Leader election's one number: the new leader epoch ([the model](crate::replication), operation 1).
//! In Kafka the controller owns it and never reissues one; klog has no controller, so the rule
//! is applied to what the new leader and the ISR members it names have seen. Pure.

/// Why no epoch can be chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElectionRefusal {
    /// An explicit epoch below zero.
    Negative(i32),
    /// An explicit epoch not above the largest seen.
    NotAbove { requested: i32, largest_seen: i32 },
    /// The largest seen is i32::MAX: epochs are 32-bit, no election can follow.
    Exhausted,
}

/// The epoch of a new leader: `requested` if given and above every epoch seen, else one above
/// the largest seen (0 when none was).
pub fn next_leader_epoch(requested: Option<i32>, largest_seen: Option<i32>) -> Result<i32, ElectionRefusal> {
    match (requested, largest_seen) {
        (Some(e), _) if e < 0 => Err(ElectionRefusal::Negative(e)),
        (Some(e), Some(l)) if e <= l => Err(ElectionRefusal::NotAbove { requested: e, largest_seen: l }),
        (Some(e), _) => Ok(e),
        (None, Some(i32::MAX)) => Err(ElectionRefusal::Exhausted),
        (None, l) => Ok(l.map_or(0, |l| l + 1)),
    }
}

/// The epoch an ISR member has seen that counts against the new leader's `requested` epoch: its
/// largest seen — unless it already follows this very leader at exactly `requested`, having been
/// told of this election before the leader (the controller sends its LeaderAndIsr to every
/// replica at once, and they arrive in any order). Pure.
pub fn counted_epoch(
    largest_seen: Option<i32>,
    follows_new_leader_at: Option<i32>,
    requested: Option<i32>,
) -> Option<i32> {
    match (largest_seen, follows_new_leader_at, requested) {
        (Some(seen), Some(at), Some(r)) if seen == r && at == r => None,
        _ => largest_seen,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_told_of_this_election_first_does_not_block_it() {
        assert_eq!(counted_epoch(Some(2), Some(2), Some(2)), None);
        assert_eq!(counted_epoch(Some(2), Some(1), Some(2)), Some(2), "it follows the leader at another epoch");
        assert_eq!(counted_epoch(Some(2), None, Some(2)), Some(2), "it follows another leader");
        assert_eq!(counted_epoch(Some(3), Some(3), Some(2)), Some(3));
        assert_eq!(counted_epoch(Some(2), Some(2), None), Some(2), "no epoch asked: one above every epoch seen");
    }

    #[test]
    fn an_election_picks_one_above_the_largest_epoch_seen_and_never_reissues_one() {
        assert_eq!(next_leader_epoch(None, None), Ok(0));
        assert_eq!(next_leader_epoch(None, Some(4)), Ok(5));
        assert_eq!(next_leader_epoch(Some(9), Some(4)), Ok(9));
        assert_eq!(
            next_leader_epoch(Some(4), Some(4)),
            Err(ElectionRefusal::NotAbove { requested: 4, largest_seen: 4 })
        );
        assert_eq!(next_leader_epoch(Some(-1), None), Err(ElectionRefusal::Negative(-1)));
        assert_eq!(next_leader_epoch(None, Some(i32::MAX)), Err(ElectionRefusal::Exhausted));
        assert_eq!(next_leader_epoch(Some(i32::MAX), Some(i32::MAX - 1)), Ok(i32::MAX));
    }
}
