//! The canonical form of a lab state, and its 128-bit fingerprint, so that equivalent histories
//! are explored once.
//!
//! Two states are merged when one maps onto the other by (1) renaming record values and (2)
//! renaming replicas. Both are sound because no rule looks at a value or a replica's name:
//! values are only ever compared for equality (a batch is copied or not, two logs hold the same
//! record or not; each appended value is new), and every rule — election, fetch, fencing, the
//! HW over the ISR, truncation — treats replicas alike, so a bijection on values or on replicas
//! maps every history from one state onto a history from the other with the same violations.
//! Values are renamed in order of first appearance (logs in replica order, then the acked
//! records); replicas are renamed by trying the permutations (at most 3! = 6) that sort the
//! replicas by a key no renaming changes (log epochs, epoch cache, HW, role…) and keeping the
//! smallest encoding: isomorphic states have the same keys, so they try corresponding
//! permutations and reach the same smallest encoding. What the encoding leaves out cannot change any future: the recovery point
//! when power loss is off (only a power-loss crash reads it), and a leader's fetch offsets of
//! replicas outside its ISR (the HW is a minimum over the ISR, and a leader's ISR only changes
//! at an election, which clears them).
//!
//! The visited set keeps only the fingerprint (hash compaction): two different canonical forms
//! share one with probability about n²/2¹²⁹ — below 10⁻²² for 10⁸ states.

use super::model::{Config, Controller, State, MAX_RECORDS, MAX_REPLICAS};

/// What the canonical form may leave out or rename, for one search's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Canon {
    /// Keep the recovery point (only a power-loss crash reads it).
    pub keep_recovery_point: bool,
    /// Merge states that differ by the replicas' names. Not with the KRaft controller: it
    /// elects the first valid replica of the assignment a, b, c, so names matter there.
    pub rename_replicas: bool,
    /// Keep a leader's fetch offsets of replicas outside its ISR (`--tiered`): the leader's
    /// AlterPartition adds a follower by its last fetch offset, so a fetch that brings nothing
    /// still changes what may follow. (The other KRaft and ZooKeeper runs leave them out too.)
    pub keep_outside_fetch_offsets: bool,
    /// Encode the log starts and the remote segments (`--tiered`; else they are all 0 and a
    /// cut's `rolled` mark is read by nothing).
    pub tiered: bool,
}

impl Canon {
    pub fn of(cfg: &Config) -> Canon {
        Canon {
            keep_recovery_point: cfg.power_loss,
            rename_replicas: cfg.controller == Controller::Free,
            keep_outside_fetch_offsets: cfg.tiered,
            tiered: cfg.tiered,
        }
    }
}
use crate::replica::Role;

/// Room for the largest encoding (3 replicas, 8 records, 9 epoch entries each; 4 remote
/// segments with 9 epoch entries each).
const BUF_BYTES: usize = 320;

struct Buf {
    bytes: [u8; BUF_BYTES],
    len: usize,
}

impl Buf {
    fn push(&mut self, b: u8) {
        self.bytes[self.len] = b;
        self.len += 1;
    }
    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The permutations of `n` replicas: `order[new] = old`.
fn permutations(n: usize) -> &'static [[u8; MAX_REPLICAS]] {
    const ONE: [[u8; 3]; 1] = [[0, 1, 2]];
    const TWO: [[u8; 3]; 2] = [[0, 1, 2], [1, 0, 2]];
    const THREE: [[u8; 3]; 6] = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    match n {
        1 => &ONE,
        2 => &TWO,
        _ => &THREE,
    }
}

fn encode(state: &State, order: &[u8; MAX_REPLICAS], canon: Canon, buf: &mut Buf) {
    let keep_recovery_point = canon.keep_recovery_point;
    let n = state.n();
    let mut rank = [0u8; MAX_REPLICAS];
    for (new, &old) in order.iter().enumerate().take(n) {
        rank[old as usize] = new as u8;
    }
    let remap_mask = |mask: u8| (0..n).filter(|&i| mask & (1 << i) != 0).fold(0u8, |m, i| m | 1 << rank[i]);
    let mut names = [0u8; MAX_RECORDS + 2];
    let mut next = 1u8;
    let mut name = |v: u8| {
        let slot = &mut names[v as usize];
        if *slot == 0 {
            *slot = next;
            next += 1;
        }
        *slot
    };
    buf.len = 0;
    buf.push(state.epochs_issued);
    buf.push(state.appended);
    buf.push(remap_mask(state.isr));
    buf.push(state.latest_leader.map_or(0xff, |l| rank[l as usize]));
    buf.push(remap_mask(state.elr));
    buf.push(remap_mask(state.last_known_elr));
    match state.announced {
        None => buf.push(0xff),
        Some((l, e, isr)) => {
            buf.push(rank[l as usize]);
            buf.push(e as u8);
            buf.push(remap_mask(isr));
        }
    }
    for &old in &order[..n] {
        let node = &state.nodes[old as usize];
        buf.push(node.log_len);
        for rec in node.records() {
            buf.push(rec.leader_epoch as u8);
            buf.push(name(rec.value));
        }
        buf.push(node.epochs_len);
        for &(e, o) in &node.epochs[..node.epochs_len as usize] {
            buf.push(e as u8);
            buf.push(o);
        }
        buf.push(node.high_watermark);
        // Always 0 unless `--stale-hw` (then the checkpoint a crash leaves).
        buf.push(node.hw_checkpoint);
        buf.push(if keep_recovery_point { node.recovery_point } else { 0 });
        buf.push(node.largest_seen as u8);
        if canon.tiered {
            buf.push(node.tier.log_start);
            buf.push(node.tier.local_log_start);
            buf.push(node.tier.rolled as u8);
            buf.push(node.tier.meta_seen);
        }
        match node.vol {
            None => buf.push(0),
            Some(v) => {
                buf.push(if v.role == Role::Leader { 2 } else { 1 });
                buf.push(v.leader_epoch as u8);
                buf.push(v.leader.map_or(0xff, |l| rank[l as usize]));
                buf.push(remap_mask(v.isr));
                for &o in &order[..n] {
                    let member = v.isr & (1 << o) != 0 || canon.keep_outside_fetch_offsets;
                    buf.push(if member { v.fetch_offsets[o as usize] as u8 } else { 0xff });
                }
            }
        }
    }
    let mut acked = [(0u8, 0u8); MAX_RECORDS];
    let len = state.acked_len as usize;
    for (slot, &(offset, value)) in acked.iter_mut().zip(state.acked()) {
        *slot = (offset, name(value));
    }
    acked[..len].sort_unstable();
    buf.push(len as u8);
    for &(offset, value) in &acked[..len] {
        buf.push(offset);
        buf.push(value);
    }
    if !canon.tiered {
        return;
    }
    // In the order their copies finished (Kafka's cache folds them in that order).
    buf.push(state.remote_len);
    for seg in &state.remote[..state.remote_len as usize] {
        buf.push(seg.offset);
        buf.push(seg.rec.leader_epoch as u8);
        buf.push(name(seg.rec.value));
        buf.push(rank[seg.copier as usize]);
        buf.push(seg.epochs_len);
        for &(e, o) in &seg.epochs[..seg.epochs_len as usize] {
            buf.push(e as u8);
            buf.push(o);
        }
    }
}

/// What a replica is, whatever the names of records and replicas: its log's epochs, its epoch
/// cache, HW, largest epoch seen and role. Isomorphic states have the same multiset of keys, so
/// trying only the permutations that put the keys in order still gives a canonical form.
fn node_key(state: &State, i: usize, keep_recovery_point: bool) -> u64 {
    let node = &state.nodes[i];
    let mut h = (node.log_len as u64) << 56 ^ (node.epochs_len as u64) << 48;
    for rec in node.records() {
        h = h.rotate_left(5) ^ (rec.leader_epoch as u8 as u64);
    }
    for &(e, o) in &node.epochs[..node.epochs_len as usize] {
        h = h.rotate_left(7) ^ ((e as u8 as u64) << 8 | o as u64);
    }
    h = h.rotate_left(9) ^ (node.high_watermark as u64) << 8 ^ node.hw_checkpoint as u64;
    if keep_recovery_point {
        h = h.rotate_left(3) ^ node.recovery_point as u64;
    }
    h = h.rotate_left(11) ^ (node.largest_seen as u8 as u64);
    match node.vol {
        None => h.rotate_left(13),
        Some(v) => {
            let role = if v.role == Role::Leader { 2u64 } else { 1 };
            h.rotate_left(13) ^ (role << 16 | (v.leader_epoch as u8 as u64) << 8 | v.isr.count_ones() as u64)
        }
    }
}

/// The smallest encoding over the replica permutations that order the replicas' keys.
fn best_encoding(state: &State, canon: Canon, best: &mut Buf, cur: &mut Buf) {
    let keep_recovery_point = canon.keep_recovery_point;
    let n = state.n();
    if !canon.rename_replicas {
        encode(state, &[0, 1, 2], canon, best);
        return;
    }
    let mut keys = [0u64; MAX_REPLICAS];
    for (i, k) in keys.iter_mut().enumerate().take(n) {
        *k = node_key(state, i, keep_recovery_point);
    }
    let mut first = true;
    for order in permutations(n) {
        if (1..n).any(|j| keys[order[j - 1] as usize] > keys[order[j] as usize]) {
            continue;
        }
        encode(state, order, canon, cur);
        if first || cur.as_slice() < best.as_slice() {
            std::mem::swap(best, cur);
            first = false;
        }
    }
}

/// The canonical encoding: the smallest over replica permutations (see [`best_encoding`]).
pub fn canonical_bytes(state: &State, canon: Canon) -> Vec<u8> {
    let mut best = Buf { bytes: [0; BUF_BYTES], len: 0 };
    let mut cur = Buf { bytes: [0; BUF_BYTES], len: 0 };
    best_encoding(state, canon, &mut best, &mut cur);
    best.as_slice().to_vec()
}

/// The 128-bit fingerprint of the canonical form.
pub fn fingerprint(state: &State, canon: Canon) -> u128 {
    let mut best = Buf { bytes: [0; BUF_BYTES], len: 0 };
    let mut cur = Buf { bytes: [0; BUF_BYTES], len: 0 };
    best_encoding(state, canon, &mut best, &mut cur);
    hash128(best.as_slice())
}

/// A 128-bit hash: two independent 64-bit lanes of multiply-fold mixing (wyhash's `mum`).
fn hash128(bytes: &[u8]) -> u128 {
    const K: [u64; 4] = [0xa076_1d64_78bd_642f, 0xe703_7ed1_a0b4_28db, 0x8ebc_6af0_9c88_c6e3, 0x5899_65cc_7537_4cc3];
    fn mum(a: u64, b: u64) -> u64 {
        let r = (a as u128).wrapping_mul(b as u128);
        (r as u64) ^ ((r >> 64) as u64)
    }
    let (mut h1, mut h2) = (K[0] ^ bytes.len() as u64, K[1].wrapping_add(bytes.len() as u64));
    for chunk in bytes.chunks(8) {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        h1 = mum(h1 ^ w, K[2]);
        h2 = mum(h2 ^ w.rotate_left(29), K[3]);
    }
    let h1 = mum(h1 ^ K[3], h2 ^ K[0]);
    let h2 = mum(h2 ^ K[2], h1 ^ K[1]);
    ((h1 as u128) << 64) | h2 as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    const FREE: Canon =
        Canon { keep_recovery_point: false, rename_replicas: true, keep_outside_fetch_offsets: false, tiered: false };
    const POWER: Canon =
        Canon { keep_recovery_point: true, rename_replicas: true, keep_outside_fetch_offsets: false, tiered: false };
    use crate::explore::model::{Action, Config};
    use crate::replication::truncation::TruncationMode;

    fn cfg() -> Config {
        Config {
            replicas: 3,
            rules: crate::replication::release::Rules::of_mode(TruncationMode::Kip279),
            max_epochs: 3,
            max_records: 3,
            max_depth: 8,
            unclean: false,
            fencing: true,
            power_loss: false,
            stale_hw: false,
            min_isr: 1,
            controller: super::super::model::Controller::Free,
            tiered: false,
        }
    }

    #[test]
    fn states_that_differ_only_by_replica_names_share_a_fingerprint() {
        let c = cfg();
        let s = State::initial(3);
        let (a, _) = s.apply(&c, Action::Elect { replica: 0, leader_epoch: 0, isr: 0b011, unclean: false });
        let (b, _) = s.apply(&c, Action::Elect { replica: 2, leader_epoch: 0, isr: 0b110, unclean: false });
        let (d, _) = s.apply(&c, Action::Elect { replica: 2, leader_epoch: 0, isr: 0b100, unclean: false });
        assert_eq!(fingerprint(&a, FREE), fingerprint(&b, FREE));
        assert_ne!(fingerprint(&a, FREE), fingerprint(&d, FREE), "a different ISR size is a different state");
        assert_eq!(canonical_bytes(&a, FREE), canonical_bytes(&b, FREE));
    }

    #[test]
    fn states_that_differ_only_by_record_values_share_a_fingerprint() {
        let c = cfg();
        let s = State::initial(2);
        let (s, _) = s.apply(&c, Action::Elect { replica: 0, leader_epoch: 0, isr: 0b01, unclean: false });
        let (mut x, _) = s.apply(&c, Action::Append { replica: 0, value: 1 });
        let (y, _) = s.apply(&c, Action::Append { replica: 0, value: 1 });
        x.nodes[0].log[0].value = 5;
        x.acked[0].1 = 5;
        assert_eq!(fingerprint(&x, FREE), fingerprint(&y, FREE));
        let mut z = y;
        z.nodes[0].log[0].leader_epoch = 1;
        assert_ne!(fingerprint(&z, FREE), fingerprint(&y, FREE));
    }

    /// `state` with replica `i` renamed `perm[i]` everywhere.
    fn relabel(state: &State, perm: [u8; 3]) -> State {
        let mut out = *state;
        let n = state.n();
        let mask = |m: u8| (0..n).filter(|&i| m & (1 << i) != 0).fold(0u8, |a, i| a | 1 << perm[i]);
        for i in 0..n {
            let mut node = state.nodes[i];
            if let Some(v) = node.vol.as_mut() {
                v.leader = v.leader.map(|l| perm[l as usize]);
                v.isr = mask(v.isr);
                let mut fo = [-1i8; 3];
                for j in 0..n {
                    fo[perm[j] as usize] = v.fetch_offsets[j];
                }
                v.fetch_offsets = fo;
            }
            out.nodes[perm[i] as usize] = node;
        }
        out.isr = mask(state.isr);
        out.elr = mask(state.elr);
        out.last_known_elr = mask(state.last_known_elr);
        out.announced = state.announced.map(|(l, e, isr)| (perm[l as usize], e, mask(isr)));
        out.latest_leader = state.latest_leader.map(|l| perm[l as usize]);
        out
    }

    /// The KRaft controller elects the first valid replica of the assignment: a state and its
    /// renaming have different futures, so they are kept apart.
    #[test]
    fn with_the_kraft_controller_replica_names_are_kept() {
        use crate::explore::model::Action;
        let c = Config { controller: Controller::Kraft { elr: true }, ..cfg() };
        let (s, _) =
            State::initial(2).apply(&c, Action::Elect { replica: 0, leader_epoch: 0, isr: 0b11, unclean: false });
        let (s, _) = s.apply(&c, Action::Crash { replica: 1, power_loss: false, hw: None });
        let r = relabel(&s, [1, 0, 2]);
        assert_ne!(fingerprint(&r, Canon::of(&c)), fingerprint(&s, Canon::of(&c)));
        assert_eq!(fingerprint(&r, FREE), fingerprint(&s, FREE));
    }

    #[test]
    fn every_renaming_of_replicas_along_random_walks_keeps_the_fingerprint() {
        let c = Config { power_loss: true, unclean: true, max_epochs: 4, max_records: 4, ..cfg() };
        let mut seed = 7u64;
        let mut pick = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % n as u64) as usize
        };
        let mut actions = Vec::new();
        for _ in 0..40 {
            let mut s = State::initial(3);
            for _ in 0..20 {
                s.successors(&c, &mut actions);
                if actions.is_empty() {
                    break;
                }
                s = s.apply(&c, actions[pick(actions.len())]).0;
                let f = fingerprint(&s, POWER);
                for perm in [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
                    let r = relabel(&s, perm);
                    assert_eq!(fingerprint(&r, POWER), f, "{perm:?}: {s:?}");
                    assert_eq!(canonical_bytes(&r, POWER), canonical_bytes(&s, POWER));
                }
            }
        }
    }
}
