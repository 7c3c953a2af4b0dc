//! Small helpers that do not deserve a dependency: base64, a stable 128-bit hash, and the
//! clock in milliseconds.

const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn encode(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        let chars = chunk.len() + 1;
        for i in 0..4 {
            if i < chars {
                out.push(alphabet[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

/// The decimal digits of `v` written into `buf`, most significant first; returns them.
pub fn decimal_digits(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            return &buf[at..];
        }
    }
}

/// Standard base64 with padding (RFC 4648 §4), used for binary keys and values in JSON.
/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar (Howard
/// Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

pub fn base64(bytes: &[u8]) -> String {
    encode(bytes, STD, true)
}

/// URL-safe base64 without padding, as Kafka prints a `Uuid`.
pub fn base64_url(bytes: &[u8]) -> String {
    encode(bytes, URL, false)
}

/// Kafka's `Uuid.fromString`: at most 24 characters of URL-safe base64 (`Base64.getUrlDecoder`:
/// padding optional, but placed right when present) decoding to exactly 16 bytes.
pub fn uuid_from_string(s: &str) -> std::result::Result<[u8; 16], String> {
    if s.len() > 24 {
        return Err(format!("{s:?} is too long to be a base64 UUID"));
    }
    let unpadded = s.trim_end_matches('=');
    let padding = s.len() - unpadded.len();
    if padding > 2 || (padding > 0 && (!s.len().is_multiple_of(4) || unpadded.len() % 4 < 2)) {
        return Err(format!("{s:?} has wrong base64 padding"));
    }
    let mut bits: u32 = 0;
    let mut bit_count = 0;
    let mut out = Vec::with_capacity(18);
    for c in unpadded.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return Err(format!("{s:?} holds {:?}, not URL-safe base64", c as char)),
        };
        bits = (bits << 6) | u32::from(v);
        bit_count += 6;
        if bit_count >= 8 {
            bit_count -= 8;
            out.push((bits >> bit_count) as u8);
        }
    }
    if unpadded.len() % 4 == 1 {
        return Err(format!("{s:?} ends in a lone base64 character"));
    }
    <[u8; 16]>::try_from(out.as_slice())
        .map_err(|_| format!("{s:?} decodes to {} bytes, not the 16 of a UUID", out.len()))
}

/// A stable 128-bit FNV-1a hash of `bytes` (two lanes), for derived ids.
pub fn hash128(bytes: &[u8]) -> [u8; 16] {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x6c62_272e_07bb_0142;
    for &x in bytes {
        a = (a ^ x as u64).wrapping_mul(0x0000_0100_0000_01b3);
        b = (b ^ x as u64).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(5);
    }
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&a.to_be_bytes());
    out[8..].copy_from_slice(&b.to_be_bytes());
    out
}

/// A Kafka `Uuid` in its string form, derived from `seed`: never the zero or metadata id,
/// never starting with '-' (Kafka's `Uuid.randomUuid` avoids that too).
pub fn derived_uuid(seed: &str) -> String {
    let mut bytes = hash128(seed.as_bytes());
    loop {
        let s = base64_url(&bytes);
        let reserved = bytes[..15].iter().all(|&b| b == 0) && bytes[15] <= 1;
        if !s.starts_with('-') && !reserved {
            return s;
        }
        bytes[0] = bytes[0].wrapping_add(1);
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_from_string_reads_what_kafka_reads() {
        let id = [7u8; 16];
        assert_eq!(uuid_from_string(&base64_url(&id)), Ok(id));
        assert_eq!(uuid_from_string(&(base64_url(&id) + "==")), Ok(id));
        for bad in [
            "nope",
            "",
            "AAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA=",
            "AAAAAAAAAAAAAAAAAAAA+A",
            "AAAAAAAAAAAAAAAAAAAAAAAAA",
        ] {
            assert!(uuid_from_string(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (raw, enc) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")] {
            assert_eq!(base64(raw.as_bytes()), enc);
        }
        assert_eq!(base64_url(&[0xfb, 0xff]), "-_8");
        assert_eq!(derived_uuid("demo").len(), 22);
        assert_eq!(derived_uuid("demo"), derived_uuid("demo"));
    }
}
