//! Fuzz target: Java properties text (`meta.properties`) through klog's reader of
//! `java.util.Properties.load` — the pure decoder and the file reader — and a round trip: the
//! keys and values it decoded, written back with every character escaped as `\uXXXX` (as
//! `Properties.store` may write them), decode to the same map.
#![no_main]

use replica_lab::format::properties;
use libfuzzer_sys::fuzz_target;

/// `text` with every character as a `\uXXXX` escape (a char above U+FFFF as its surrogates).
fn escaped(text: &str) -> String {
    let mut out = String::new();
    for unit in text.encode_utf16() {
        out.push_str(&format!("\\u{unit:04x}"));
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let decoded = properties::decode(data);
    if let Ok(map) = &decoded {
        let mut text = String::from("# written back\n");
        for (k, v) in map {
            text.push_str(&escaped(k));
            text.push('=');
            text.push_str(&escaped(v));
            text.push('\n');
        }
        let again = properties::decode(text.as_bytes()).expect("escaped text decodes");
        // A lone surrogate from the input is U+FFFD in both.
        assert_eq!(&again, map, "round trip of {text:?}");
    }
    if let Err(e) = &decoded {
        assert!(e.position < data.len() as u64, "{e:?}");
    }
    let path = replica_lab_fuzz::scratch_dir().join("meta.properties");
    std::fs::write(&path, data).expect("write the scratch file");
    let read = replica_lab::replica::read_meta_properties(&path);
    assert_eq!(read.is_ok(), decoded.is_ok());
});
