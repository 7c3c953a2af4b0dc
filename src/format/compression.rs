//! Compression codecs of v2 batches (attributes bits 0–2; Kafka `CompressionType`).
//!
//! The records area of a compressed batch is one stream whose plain content is the records
//! one after another. This build decodes uncompressed batches only; a compressed batch is
//! reported as such (never read as garbage).

/// A batch's compression codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Snappy,
    Lz4,
    Zstd,
}

impl Compression {
    pub fn from_code(code: u8) -> Option<Compression> {
        Some(match code {
            0 => Compression::None,
            1 => Compression::Gzip,
            2 => Compression::Snappy,
            3 => Compression::Lz4,
            4 => Compression::Zstd,
            _ => return None,
        })
    }
    pub fn code(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Gzip => 1,
            Compression::Snappy => 2,
            Compression::Lz4 => 3,
            Compression::Zstd => 4,
        }
    }
    /// Lower-case name as `kafka-dump-log` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// Decompress a records area.
pub fn decompress(codec: Compression, data: &[u8]) -> Result<Vec<u8>, String> {
    match codec {
        Compression::None => Ok(data.to_vec()),
        other => Err(format!("{} decoding is not supported by this build", other.name())),
    }
}

/// Compress a records area. Only `None` is produced by this build.
pub fn compress(codec: Compression, data: &[u8]) -> Vec<u8> {
    assert_eq!(codec, Compression::None, "klog does not write compressed batches yet");
    data.to_vec()
}
