//! The iteration order of Java's `java.util.HashMap` (OpenJDK 8 through 21: `putVal`,
//! `computeIfAbsent`, `removeNode`, `clear`, `resize`, `treeifyBin`), the one emulation klog's
//! outputs that follow a Kafka map's order use: producer snapshots and describe-producers
//! (`ProducerStateManager.producers`, filled by `put`), find-hanging, and the maps
//! `DumpLogSegments` reports from (filled by `computeIfAbsent`).
//!
//! Keys go into buckets by their `hashCode` spread (`h ^ h >>> 16`) and masked by the table
//! size (16 on the first insertion, doubled when the size passes 3/4 of it; a resize splits each
//! bucket into a low and a high one keeping their order; `clear` keeps the table). `put` appends
//! a new key at the tail of its bucket and `computeIfAbsent` at its head. A bucket that grows
//! long resizes a table under 64 buckets (`treeifyBin`): `put` when it adds a 9th key to a
//! bucket, `computeIfAbsent` when it adds an 8th. In a table of 64 or more the bucket becomes a
//! red-black tree, whose order is not emulated: [`JavaHashMap::order`] says `None` then. The
//! values are not kept here, only the keys' order. Pure, no I/O.

/// `MIN_TREEIFY_CAPACITY`: below it a long bucket resizes the table instead of becoming a tree.
const MIN_TREEIFY_CAPACITY: usize = 64;
/// `TREEIFY_THRESHOLD`.
const TREEIFY_THRESHOLD: usize = 8;

/// `Long.hashCode`: the high and low words xored.
pub fn long_hash(v: i64) -> i32 {
    (v ^ ((v as u64) >> 32) as i64) as i32
}

/// `String.hashCode`: over the UTF-16 code units, `31 * h + c`.
pub fn string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The keys of a Java `HashMap` in its buckets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaHashMap<K> {
    /// Each bucket's keys with their spread hashes, in the bucket's linked order; empty until
    /// the first insertion (Java allocates the table then).
    table: Vec<Vec<(u32, K)>>,
    size: usize,
    /// A bucket became a tree: the order is no longer emulated.
    treeified: bool,
    /// How many times a long bucket resized the table.
    treeify_resizes: u32,
}

impl<K: PartialEq + Clone> Default for JavaHashMap<K> {
    fn default() -> Self {
        JavaHashMap { table: Vec::new(), size: 0, treeified: false, treeify_resizes: 0 }
    }
}

impl<K: PartialEq + Clone> JavaHashMap<K> {
    pub fn new() -> Self {
        Self::default()
    }

    fn spread(hash: i32) -> u32 {
        let h = hash as u32;
        h ^ (h >> 16)
    }

    /// `threshold`: 3/4 of the table (12 for 16 buckets).
    fn threshold(&self) -> usize {
        self.table.len() / 4 * 3
    }

    /// `resize`: the first table (16 buckets), or twice the buckets, each split in order.
    fn resize(&mut self) {
        let old = self.table.len();
        if old == 0 {
            self.table = vec![Vec::new(); 16];
            return;
        }
        let mut grown: Vec<Vec<(u32, K)>> = vec![Vec::new(); old * 2];
        for (j, bucket) in std::mem::take(&mut self.table).into_iter().enumerate() {
            for (h, k) in bucket {
                let to = if h as usize & old == 0 { j } else { j + old };
                grown[to].push((h, k));
            }
        }
        self.table = grown;
    }

    /// `treeifyBin`: a table under 64 buckets resizes; a larger one makes the bucket a tree.
    fn treeify_bin(&mut self) {
        if self.table.len() < MIN_TREEIFY_CAPACITY {
            self.treeify_resizes += 1;
            self.resize();
        } else {
            self.treeified = true;
        }
    }

    fn index(&self, h: u32) -> usize {
        h as usize & (self.table.len() - 1)
    }

    pub fn contains(&self, hash: i32, key: &K) -> bool {
        if self.table.is_empty() {
            return false;
        }
        let h = Self::spread(hash);
        self.table[self.index(h)].iter().any(|(_, k)| k == key)
    }

    /// `put`: a present key keeps its place; a new one goes to the tail of its bucket.
    pub fn put(&mut self, hash: i32, key: K) {
        if self.table.is_empty() {
            self.resize();
        }
        let h = Self::spread(hash);
        let i = self.index(h);
        if self.table[i].iter().any(|(_, k)| *k == key) {
            return;
        }
        // `binCount` in putVal: the nodes walked before the tail, one less than the bucket held.
        let held = self.table[i].len();
        self.table[i].push((h, key));
        if held > TREEIFY_THRESHOLD - 1 {
            self.treeify_bin();
        }
        self.size += 1;
        if self.size > self.threshold() {
            self.resize();
        }
    }

    /// `computeIfAbsent` (with a function that gives a value): the table grows *before* the
    /// insertion once the size is past the threshold, and a new key goes to the head of its bucket.
    pub fn compute_if_absent(&mut self, hash: i32, key: K) {
        if self.size > self.threshold() || self.table.is_empty() {
            self.resize();
        }
        let h = Self::spread(hash);
        let i = self.index(h);
        if self.table[i].iter().any(|(_, k)| *k == key) {
            return;
        }
        let held = self.table[i].len();
        self.table[i].insert(0, (h, key));
        if held >= TREEIFY_THRESHOLD - 1 {
            self.treeify_bin();
        }
        self.size += 1;
    }

    /// `remove`: the key leaves its bucket; the others keep their order.
    pub fn remove(&mut self, hash: i32, key: &K) {
        if self.table.is_empty() {
            return;
        }
        let h = Self::spread(hash);
        let i = self.index(h);
        if let Some(at) = self.table[i].iter().position(|(_, k)| k == key) {
            self.table[i].remove(at);
            self.size -= 1;
        }
    }

    /// `clear`: every bucket emptied, the table kept.
    pub fn clear(&mut self) {
        self.table.iter_mut().for_each(Vec::clear);
        self.size = 0;
    }

    pub fn len(&self) -> usize {
        self.size
    }

    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// The keys in iteration order (bucket by bucket, each in its linked order); `None` once a
    /// bucket became a tree.
    pub fn order(&self) -> Option<Vec<K>> {
        if self.treeified {
            return None;
        }
        Some(self.table.iter().flatten().map(|(_, k)| k.clone()).collect())
    }

    /// How many times a long bucket resized the table (`treeifyBin` under 64 buckets).
    pub fn treeify_resizes(&self) -> u32 {
        self.treeify_resizes
    }

    /// The buckets the table has (0 before the first insertion).
    pub fn capacity(&self) -> usize {
        self.table.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn longs(m: &JavaHashMap<i64>) -> Vec<i64> {
        m.order().unwrap()
    }

    #[test]
    fn put_appends_and_compute_if_absent_prepends_in_a_bucket() {
        let mut put = JavaHashMap::new();
        let mut cia = JavaHashMap::new();
        for k in [1i64, 17, 33, 2] {
            put.put(long_hash(k), k);
            cia.compute_if_absent(long_hash(k), k);
        }
        assert_eq!(longs(&put), [1, 17, 33, 2]);
        assert_eq!(longs(&cia), [33, 17, 1, 2]);
        // A present key keeps its place.
        put.put(long_hash(1), 1);
        assert_eq!(longs(&put), [1, 17, 33, 2]);
    }

    /// Issue 41, point 6: a bucket reaching 8 keys (computeIfAbsent) or 9 (put) in a table
    /// under 64 buckets resizes it (`HashMap.treeifyBin`, MIN_TREEIFY_CAPACITY 64).
    #[test]
    fn a_long_bucket_in_a_small_table_resizes_it() {
        // 0, 32, 64, ... share bucket 0 of 16 and of 32 buckets.
        let keys: Vec<i64> = (0..9).map(|j| j * 32).collect();
        let mut put = JavaHashMap::new();
        for &k in &keys[..8] {
            put.put(long_hash(k), k);
        }
        assert_eq!(put.capacity(), 16, "8 keys: no resize yet");
        put.put(long_hash(keys[8]), keys[8]);
        assert_eq!(put.capacity(), 32, "a 9th key in one bucket resizes");
        let mut cia = JavaHashMap::new();
        for &k in &keys[..7] {
            cia.compute_if_absent(long_hash(k), k);
        }
        assert_eq!(cia.capacity(), 16);
        cia.compute_if_absent(long_hash(keys[7]), keys[7]);
        assert_eq!(cia.capacity(), 32, "an 8th key in one bucket resizes");
        assert_eq!(longs(&cia), [224, 192, 160, 128, 96, 64, 32, 0]);
    }

    #[test]
    fn remove_and_clear_keep_the_table() {
        let mut m = JavaHashMap::new();
        for k in 0..13i64 {
            m.put(long_hash(k), k);
        }
        assert_eq!(m.capacity(), 32);
        m.remove(long_hash(3), &3);
        m.clear();
        assert!(m.is_empty());
        m.put(long_hash(24), 24);
        m.put(long_hash(8), 8);
        assert_eq!(longs(&m), [8, 24], "24 is bucket 24 of 32 (of 16 it would share 8's, after it)");
    }

    #[test]
    fn hashes_are_javas() {
        assert_eq!(long_hash(-1), 0);
        assert_eq!(long_hash(1 << 32), 1);
        assert_eq!(string_hash("Aa"), string_hash("BB"));
        assert_eq!(string_hash("hello"), 99_162_322);
    }
}
