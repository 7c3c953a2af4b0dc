//! `dump --value-format`: record values shown as text, hex or base64, and a value in
//! Confluent's wire format (magic byte 0, a 4-byte big-endian schema id, then the payload)
//! named with its schema id. Only how a value is shown; what a value is never changes.

use std::borrow::Cow;

/// How `dump --value-format` shows a record's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueFormat {
    /// UTF-8 text where it is; each renderer's own form for bytes that are not.
    Text,
    Hex,
    Base64,
}

/// The schema id of a value in Confluent's wire format: magic byte 0 and a non-negative
/// big-endian int32 (Schema Registry ids), then the payload (possibly empty).
pub fn confluent_schema_id(value: &[u8]) -> Option<i32> {
    match value {
        [0, a, b, c, d, ..] => Some(i32::from_be_bytes([*a, *b, *c, *d])).filter(|id| *id >= 0),
        _ => None,
    }
}

/// Lower-case hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// The whole value as a JSON string with its encoding: `utf8` text (base64 when it is not
/// UTF-8), `hex` or `base64`.
pub fn encode(value: &[u8], format: ValueFormat) -> (Cow<'_, str>, &'static str) {
    match format {
        ValueFormat::Text => match std::str::from_utf8(value) {
            Ok(s) => (Cow::Borrowed(s), "utf8"),
            Err(_) => (Cow::Owned(crate::util::base64(value)), "base64"),
        },
        ValueFormat::Hex => (Cow::Owned(hex(value)), "hex"),
        ValueFormat::Base64 => (Cow::Owned(crate::util::base64(value)), "base64"),
    }
}

/// A value for a table cell of at most about `max_chars`: `Confluent wire format (schema id N)`
/// and then the payload after the 5-byte header, or the whole value; text as
/// [`super::display_bytes`] shows it, hex or base64 of the first bytes with `…` when cut.
pub fn table_text(value: &[u8], format: ValueFormat, max_chars: usize) -> String {
    let (label, payload) = match confluent_schema_id(value) {
        Some(id) => (format!("Confluent wire format (schema id {id}) "), &value[5..]),
        None => (String::new(), value),
    };
    let shown = match format {
        ValueFormat::Text => super::display_bytes(Some(payload), max_chars),
        ValueFormat::Hex | ValueFormat::Base64 => {
            // Only what can be shown is encoded: a 40 MB value costs what a short one does.
            let head = &payload[..payload.len().min(max_chars)];
            let text = if format == ValueFormat::Hex { hex(head) } else { crate::util::base64(head) };
            let whole = if format == ValueFormat::Hex { payload.len() * 2 } else { payload.len().div_ceil(3) * 4 };
            if whole > max_chars {
                let cut: String = text.chars().take(max_chars.saturating_sub(1)).collect();
                format!("{cut}…")
            } else {
                text
            }
        }
    };
    format!("{label}{shown}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_with_magic_zero_and_four_bytes_names_its_schema_id() {
        assert_eq!(confluent_schema_id(&[0, 0, 0, 0, 42, 2, 6]), Some(42));
        assert_eq!(confluent_schema_id(&[0, 0, 0, 1, 0]), Some(256));
        assert_eq!(confluent_schema_id(&[0, 0, 0, 1]), None);
        assert_eq!(confluent_schema_id(&[1, 0, 0, 0, 42]), None);
        assert_eq!(confluent_schema_id(&[0, 0x80, 0, 0, 1]), None);
        assert_eq!(confluent_schema_id(b""), None);
    }

    #[test]
    fn values_encode_as_text_hex_or_base64() {
        assert_eq!(encode(b"hi", ValueFormat::Text), (Cow::Borrowed("hi"), "utf8"));
        assert_eq!(encode(&[0xff], ValueFormat::Text), (Cow::Owned::<str>("/w==".into()), "base64"));
        assert_eq!(encode(&[0, 0xab, 0x10], ValueFormat::Hex).0, "00ab10");
        assert_eq!(encode(b"hi", ValueFormat::Base64).0, "aGk=");
        assert_eq!(
            table_text(&[0, 0, 0, 0, 7, 0x68, 0x69], ValueFormat::Text, 40),
            "Confluent wire format (schema id 7) hi"
        );
        assert_eq!(
            table_text(&[0, 0, 0, 0, 7, 0xca, 0xfe], ValueFormat::Hex, 40),
            "Confluent wire format (schema id 7) cafe"
        );
        assert_eq!(table_text(&[0xab; 30], ValueFormat::Hex, 10), format!("{}…", "ab".repeat(4) + "a"));
    }
}
