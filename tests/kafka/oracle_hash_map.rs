//! klog's one emulation of `java.util.HashMap`'s iteration order
//! (`replica_lab::log::java_hash_map`) against the JDK's own (issue 41, point 6): generated
//! histories of `put`, `computeIfAbsent`, `remove` and `clear` over Long keys (strides that
//! crowd one bucket, so that a bucket reaches 8 keys in a table under 64 buckets and resizes
//! it: `HashMap.treeifyBin`) and String keys (`Aa`/`BB` collide), each replayed by
//! `klog.oracle.HashMapOrder` on the JVM the oracle runs. Every history whose buckets stayed
//! lists must iterate in the JDK's order.

use crate::oracle::hash_map_order_batch;
use replica_lab::log::java_hash_map::{long_hash, string_hash, JavaHashMap};

/// xorshift64*, seeded.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

const HISTORIES: usize = 600;

#[test]
fn klogs_hash_map_order_is_the_jdks_on_generated_histories() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x6a61_7661_6d61_7031);
    let mut histories = Vec::new();
    let mut mine: Vec<(Option<Vec<String>>, u32)> = Vec::new();
    const LETTERS: &[u8] = b"ABab01";
    for _ in 0..HISTORIES {
        let longs = rng.below(3) != 0;
        let stride: i64 = [1, 16, 32, 64, 1 << 32][rng.below(5) as usize];
        let pool = 4 + rng.below(60) as i64;
        let mut m_long: JavaHashMap<i64> = JavaHashMap::new();
        let mut m_str: JavaHashMap<String> = JavaHashMap::new();
        let mut line = vec![if longs { "L" } else { "S" }.to_string()];
        for _ in 0..(1 + rng.below(80)) {
            let op = rng.below(100);
            if op < 3 {
                line.push("x".into());
                m_long.clear();
                m_str.clear();
                continue;
            }
            let verb = match op {
                3..=50 => 'p',
                51..=85 => 'c',
                _ => 'r',
            };
            if longs {
                let k = stride.wrapping_mul(rng.below(pool as u64) as i64) + [0, 3][rng.below(2) as usize];
                match verb {
                    'p' => m_long.put(long_hash(k), k),
                    'c' => m_long.compute_if_absent(long_hash(k), k),
                    _ => m_long.remove(long_hash(k), &k),
                }
                line.push(format!("{verb}:{k}"));
            } else {
                let n = 1 + rng.below(3) as usize;
                let k: String = (0..n).map(|_| LETTERS[rng.below(LETTERS.len() as u64) as usize] as char).collect();
                match verb {
                    'p' => m_str.put(string_hash(&k), k.clone()),
                    'c' => m_str.compute_if_absent(string_hash(&k), k.clone()),
                    _ => m_str.remove(string_hash(&k), &k),
                }
                line.push(format!("{verb}:{k}"));
            }
        }
        mine.push(if longs {
            (m_long.order().map(|o| o.iter().map(i64::to_string).collect()), m_long.treeify_resizes())
        } else {
            (m_str.order(), m_str.treeify_resizes())
        });
        histories.push(line.join(" "));
    }
    let Some(jdk) = hash_map_order_batch(tmp.path(), &histories) else { return };
    let (mut agree, mut trees, mut resized) = (0, 0, 0);
    let mut differences = Vec::new();
    for ((history, (order, resizes)), theirs) in histories.iter().zip(&mine).zip(&jdk) {
        match order {
            None => trees += 1,
            Some(o) if o == theirs => {
                agree += 1;
                resized += usize::from(*resizes > 0);
            }
            Some(o) => differences.push(format!("{history}\n  klog {o:?}\n  JDK  {theirs:?}")),
        }
    }
    eprintln!(
        "HashMap order: {agree} of {} list-bucket histories agree with the JDK ({resized} resized by a long bucket); \
         {trees} made a tree bucket (not emulated)",
        HISTORIES - trees
    );
    assert!(
        differences.is_empty(),
        "{} differ:\n{}",
        differences.len(),
        differences[..differences.len().min(5)].join("\n")
    );
    assert!(resized >= 30, "{resized} histories resized by a long bucket");
    assert!(trees * 5 < HISTORIES, "{trees} of {HISTORIES} histories made a tree bucket");
}
