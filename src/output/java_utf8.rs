//! Bytes as Java reads them into a `String`: Kafka's tools print a key, a value or a schema
//! string after `new String(bytes, UTF_8)`, so the dump-log lines (`dump_log`) and the decoded
//! internal records (`internal_record`) decode text here to print what Kafka prints. Pure.

/// `new String(bytes, UTF_8)` as the JDK decodes it (`String.decodeUTF8_UTF16`), which
/// replaces malformed input in other units than Rust's `from_utf8_lossy`: an encoded surrogate
/// (`ED A0 80`) is one U+FFFD, not three.
pub fn java_utf8(bytes: &[u8]) -> String {
    const REPL: char = '\u{FFFD}';
    let cont = |b: u8| b & 0xc0 == 0x80;
    let mut out = String::with_capacity(bytes.len());
    let (mut sp, sl) = (0usize, bytes.len());
    while sp < sl {
        let b1 = bytes[sp];
        sp += 1;
        if b1 < 0x80 {
            out.push(b1 as char);
        } else if (0xc2..=0xdf).contains(&b1) {
            if sp < sl {
                let b2 = bytes[sp];
                if cont(b2) {
                    sp += 1;
                    out.push(char::from_u32(((b1 as u32 & 0x1f) << 6) | (b2 as u32 & 0x3f)).unwrap_or(REPL));
                } else {
                    out.push(REPL);
                }
                continue;
            }
            out.push(REPL);
            break;
        } else if b1 & 0xf0 == 0xe0 {
            // isMalformed3_2: an overlong E0 80..9F, or no continuation byte
            let malformed_2 = |b2: u8| (b1 == 0xe0 && b2 & 0xe0 == 0x80) || !cont(b2);
            if sp + 1 < sl {
                let (b2, b3) = (bytes[sp], bytes[sp + 1]);
                if malformed_2(b2) || !cont(b3) {
                    out.push(REPL);
                    // malformed3: skip b1 alone, or b1 and b2
                    sp += if malformed_2(b2) { 0 } else { 1 };
                } else {
                    sp += 2;
                    let c = ((b1 as u32 & 0x0f) << 12) | ((b2 as u32 & 0x3f) << 6) | (b3 as u32 & 0x3f);
                    // a surrogate is one replacement for all three bytes
                    out.push(char::from_u32(c).unwrap_or(REPL));
                }
                continue;
            }
            if sp < sl && malformed_2(bytes[sp]) {
                out.push(REPL);
                continue;
            }
            out.push(REPL);
            break;
        } else if b1 & 0xf8 == 0xf0 {
            // isMalformed4_2 (with b1 > F4 checked apart)
            let malformed_2 =
                |b2: u8| (b1 == 0xf0 && !(0x90..=0xbf).contains(&b2)) || (b1 == 0xf4 && b2 & 0xf0 != 0x80) || !cont(b2);
            if sp + 2 < sl {
                let (b2, b3, b4) = (bytes[sp], bytes[sp + 1], bytes[sp + 2]);
                let uc = ((b1 as u32 & 0x07) << 18)
                    | ((b2 as u32 & 0x3f) << 12)
                    | ((b3 as u32 & 0x3f) << 6)
                    | (b4 as u32 & 0x3f);
                if !cont(b2) || !cont(b3) || !cont(b4) || !(0x10000..=0x10ffff).contains(&uc) {
                    out.push(REPL);
                    // malformed4: skip 1, 2 or 3 bytes
                    sp += if b1 > 0xf4 || malformed_2(b2) {
                        0
                    } else if !cont(b3) {
                        1
                    } else {
                        2
                    };
                } else {
                    sp += 3;
                    out.push(char::from_u32(uc).unwrap_or(REPL));
                }
                continue;
            }
            if b1 > 0xf4 || (sp < sl && malformed_2(bytes[sp])) {
                out.push(REPL);
                continue;
            }
            sp += 1;
            out.push(REPL);
            if sp < sl && !cont(bytes[sp]) {
                continue;
            }
            break;
        } else {
            out.push(REPL);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_utf8_is_replaced_in_java_units() {
        // an encoded surrogate is one replacement in Java, three in from_utf8_lossy
        assert_eq!(java_utf8(&[0xed, 0xa0, 0x80, b'a']), "\u{FFFD}a");
        assert_eq!(java_utf8(&[0xf0, 0x9f, 0x98, 0x80, 0xe2, 0x82]), "\u{1F600}\u{FFFD}");
        assert_eq!(java_utf8(&[0xe0, 0x80, 0x80]), "\u{FFFD}\u{FFFD}\u{FFFD}");
        assert_eq!(java_utf8(&[0xc0, 0xaf, 0xff, 0xf4, 0x90, 0x80, 0x80]), "\u{FFFD}".repeat(7));
        assert_eq!(java_utf8("héllo €".as_bytes()), "héllo €");
        // every byte string gives a string, never a panic
        for a in 0..=255u8 {
            for b in [0x00, 0x80, 0x9f, 0xa0, 0xbf, 0xc0] {
                java_utf8(&[a, b]);
                java_utf8(&[a, b, 0x80]);
                java_utf8(&[a]);
            }
        }
    }
}
