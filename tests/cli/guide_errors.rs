//! The errors an operator meets following the guides (docs/recover.md, stuck-lso.md,
//! failover.md, data-dirs.md) end with what to do (issue 43, the "what to do next" sweep): each
//! is one line, exit 2, nothing on stdout, and where the step it names is a klog command or
//! flag, taking that step gets past it.

use crate::common::*;

/// A refusal: exit 2, nothing on stdout, one line holding every one of `says`.
fn refused(args: &[&str], says: &[&str]) -> String {
    let (out, err) = code(args, 2);
    assert!(out.is_empty(), "{args:?}: {out}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    for w in says {
        assert!(err.contains(w), "{args:?}: no {w:?} in {err}");
    }
    err
}

fn ok_s(args: &[String]) -> String {
    ok(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn refused_s(args: &[String], says: &[&str]) -> String {
    refused(&args.iter().map(String::as_str).collect::<Vec<_>>(), says)
}

#[test]
fn a_release_or_ibp_klog_has_not_read_names_the_newest_it_has() {
    let lab = Lab::new();
    let (f, l) = (lab.create("f", 1, &[]), lab.create("l", 2, &[]));
    ok(&["elect", s(&l), "--isr", s(&f)]);
    let dry = ["recover", "--dry-run", s(&f), "--leader", s(&l), "--kafka"];
    refused(&[&dry[..], &["5.0"]].concat(), &["newer than the rules klog knows", "give 4.4.0 or an older release"]);
    ok(&[&dry[..], &["4.4.0"]].concat());
    refused(
        &[&dry[..], &["2.8.2,ibp=3.0"]].concat(),
        &["does not know inter.broker.protocol.version 3.0-IV1", "give ibp=2.8-IV1 or an older one"],
    );
    ok(&[&dry[..], &["2.8.2,ibp=2.8-IV1"]].concat());
}

#[test]
fn a_follower_told_first_says_which_epoch_or_election_gets_past_the_refusal() {
    let lab = Lab::new();
    let (f, l) = (lab.create("f", 1, &[]), lab.create("l", 2, &[]));
    ok(&["elect", s(&l), "--isr", s(&f)]);
    ok(&["append", s(&l), "x"]);
    ok(&["fetch", "--leader", s(&l), s(&f)]);
    ok(&["crash", s(&f)]);
    // Told of an epoch the leader already leads at: the first epoch above it.
    refused(
        &["recover", s(&f), "--leader", s(&l), "--leader-epoch", "0", "--told-first"],
        &["already leads at epoch 0", "give --leader-epoch 1 or above"],
    );
    // Told before the leader: KIP-320's UNKNOWN_LEADER_EPOCH, and the election that ends it.
    let step = format!("elect it first (`klog elect {} --epoch 5`), or add --no-fencing", s(&l));
    refused(
        &["recover", s(&f), "--leader", s(&l), "--leader-epoch", "5", "--told-first"],
        &["UNKNOWN_LEADER_EPOCH", &step],
    );
    ok(&["elect", s(&l), "--epoch", "5", "--isr", s(&f)]);
    let out = ok(&["recover", s(&f), "--leader", s(&l)]);
    assert!(out.contains("epoch 5"), "{out}");
}

#[test]
fn a_producer_or_coordinator_epoch_refused_names_the_epoch_that_is_taken() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    ok(&["elect", s(&a)]);
    let dir = s(&a).to_string();
    let append = |extra: &[&'static str]| -> Vec<String> {
        ["append", &dir].iter().chain(extra).map(|x| x.to_string()).collect()
    };
    ok_s(&append(&["--producer-id", "11", "--producer-epoch", "2", "--sequence", "0", "v"]));
    refused_s(
        &append(&["--producer-id", "11", "--producer-epoch", "1", "--sequence", "1", "v"]),
        &["INVALID_PRODUCER_EPOCH", "(give --producer-epoch 2 or above)", "nothing written"],
    );
    ok_s(&append(&["--producer-id", "11", "--producer-epoch", "2", "--sequence", "1", "v"]));
    // A transaction's marker from a coordinator older than the producer's last.
    ok_s(&append(&["--producer-id", "12", "--producer-epoch", "0", "--sequence", "0", "--transactional", "t"]));
    ok_s(&append(&["--producer-id", "12", "--end-txn", "abort", "--coordinator-epoch", "3"]));
    ok_s(&append(&["--producer-id", "12", "--producer-epoch", "0", "--sequence", "1", "--transactional", "t"]));
    refused_s(
        &append(&["--producer-id", "12", "--end-txn", "commit", "--coordinator-epoch", "2"]),
        &["TRANSACTION_COORDINATOR_FENCED", "(give --coordinator-epoch 3 or above)"],
    );
    ok_s(&append(&["--producer-id", "12", "--end-txn", "commit", "--coordinator-epoch", "3"]));
}

#[test]
fn create_on_a_partition_or_replica_id_the_dir_has_says_what_to_give() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    refused(
        &["create", s(&a)],
        &["exists already: the log dir holds this partition; name another --topic or --partition to add one"],
    );
    ok(&["create", s(&a), "--partition", "1"]);
    refused(
        &["create", s(&a), "--topic", "orders", "--replica-id", "9"],
        &["is replica 1", "leave --replica-id out to add partitions to it, or give a new DIR for replica 9"],
    );
    ok(&["create", s(&a), "--topic", "orders"]);
}
