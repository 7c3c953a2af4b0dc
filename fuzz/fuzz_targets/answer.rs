//! `demo --predict` answers: arbitrary bytes as stdin, read line by line with the one answer
//! reader through a small buffer (so lines cross buffer refills), each line judged as a yes/no
//! and as a number. Every line must come back bounded; a panic is a bug.
#![no_main]

use replica_lab::answer::{read_answer, yes_no, ANSWER_BYTES_MAX};
use libfuzzer_sys::fuzz_target;
use std::io::BufReader;

fuzz_target!(|data: &[u8]| {
    let capacity = 1 + usize::from(data.first().copied().unwrap_or(0) % 16);
    let mut input = BufReader::with_capacity(capacity, data);
    let mut lines = 0usize;
    while let Some((line, _cut)) = read_answer(&mut input).expect("reading a slice never fails") {
        // Lossy decoding may grow a kept byte into U+FFFD (3 bytes), never more.
        assert!(line.len() <= ANSWER_BYTES_MAX * 3);
        let _ = yes_no(&line);
        let _ = line.trim().parse::<i64>();
        lines += 1;
        assert!(lines <= data.len() + 1, "more lines than bytes");
    }
});
