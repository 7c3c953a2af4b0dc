//! Compression codecs of v2 batches (attributes bits 0–2; Kafka `CompressionType`).
//!
//! The records area of a compressed batch (bytes 61..end) is one stream whose plain content is the
//! records one after another. This module turns such a stream into plain bytes and back, for the
//! four codecs Kafka knows, in the framing Kafka's own clients write:
//!
//! | codec  | framing written by Kafka (Java client) | crate |
//! |--------|-----------------------------------------|-------|
//! | gzip   | `java.util.zip.GZIPOutputStream`: a gzip member (RFC 1952), OS byte 255 | [`flate2`] with its default pure-Rust `miniz_oxide` backend (no zlib C library) |
//! | snappy | xerial snappy-java `SnappyOutputStream`: 16-byte header, then `[int32 BE length][raw snappy block]` per 32 KiB of input | [`snap`] (`snap::raw`), BurntSushi's pure-Rust snappy; the xerial framing is done here |
//! | lz4    | `Lz4BlockOutputStream`: LZ4 frame, independent blocks, 64 KiB max block, no checksums, no content size | [`lz4_flex`] (`block` module, safe code only); the frame is done here because `lz4_flex::frame` rejects Kafka's old wrong header checksum (KAFKA-3160) |
//! | zstd   | zstd-jni `ZstdOutputStreamNoFinalizer`: one standard zstd frame | [`ruzstd`], pure-Rust zstd decoder and encoder |
//!
//! All four crates are pure Rust (no C toolchain, no `-sys` crate), maintained and fast enough for
//! log files. `twox-hash` (already pulled in by `ruzstd`) supplies XXH32 for the LZ4 checksums.
//!
//! Decoding never panics on any input: every problem (wrong magic, corrupt or truncated stream, bad
//! checksum, output over [`MAX_DECOMPRESSED`]) comes back as `Err` with a message that says what was
//! expected. Accepted variants beyond what the Java client writes:
//! - snappy: a plain raw snappy block without the xerial header (librdkafka and old clients), and
//!   concatenated xerial streams (snappy-java accepts a header in place of a chunk length);
//! - lz4: any block size 64 KiB..4 MiB, block checksums (verified), content size (verified),
//!   content checksum (verified), skippable frames and several frames one after another. The header
//!   checksum (HC) byte is *not* checked: Kafka's magic v0/v1 writers hashed the magic bytes too
//!   (KAFKA-3160), so a good frame may carry either value. Dependent blocks are rejected, as
//!   Kafka rejects them ("Dependent block stream is unsupported");
//! - gzip: several members one after another; zstd: several frames and skippable frames, and the
//!   content checksum is verified when the frame has one.
//!
//! Encoding uses the same framing as the Java client and Kafka reads it back, but the compressed
//! bytes are not guaranteed identical: the compressors are other implementations (snappy output
//! often matches snappy-java's; gzip and lz4 match only for stored/tiny data).
//! The zstd encoder is `ruzstd`'s `Fastest` level (about zstd level 1; Kafka's default is 3) and
//! writes a content checksum.

use std::hash::Hasher;
use std::io::Read;

/// The most bytes one records area may decompress to; more is reported as an error (memory bomb).
pub const MAX_DECOMPRESSED: usize = 512 * 1024 * 1024;

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

/// Decompress a records area. Output larger than [`MAX_DECOMPRESSED`] is an error.
///
/// Error messages do not repeat the codec's name (callers prefix it, e.g. "lz4 stream: ...").
pub fn decompress(codec: Compression, data: &[u8]) -> Result<Vec<u8>, String> {
    decompress_limited(codec, data, MAX_DECOMPRESSED)
}

/// Compress a records area in the framing Kafka's Java client writes for `codec`.
pub fn compress(codec: Compression, data: &[u8]) -> Vec<u8> {
    match codec {
        Compression::None => data.to_vec(),
        Compression::Gzip => gzip_compress(data),
        Compression::Snappy => snappy_compress(data),
        Compression::Lz4 => lz4_compress(data),
        Compression::Zstd => zstd_compress(data),
    }
}

/// [`decompress`] with an explicit output limit in bytes.
fn decompress_limited(codec: Compression, data: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    if codec != Compression::None && data.is_empty() {
        return Err(format!("the compressed records area is empty, expected a {} stream", codec.name()));
    }
    match codec {
        Compression::None => Ok(data.to_vec()),
        Compression::Gzip => gzip_decompress(data, limit),
        Compression::Snappy => snappy_decompress(data, limit),
        Compression::Lz4 => lz4_decompress(data, limit),
        Compression::Zstd => zstd_decompress(data, limit),
    }
}

fn limit_error(codec: &str, limit: usize) -> String {
    format!("decompressed {codec} data exceeds the limit of {limit} bytes (possible compression bomb)")
}

/// Room left under `limit` when `out` already holds `used` bytes.
fn room(used: usize, limit: usize) -> usize {
    limit.saturating_sub(used)
}

fn be_u32(data: &[u8], pos: usize) -> Option<u32> {
    let b = data.get(pos..pos.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn le_u32(data: &[u8], pos: usize) -> Option<u32> {
    let b = data.get(pos..pos.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

// ------------------------------------------------------------------------------------------------
// gzip

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

fn gzip_compress(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    // Same header as Java's GZIPOutputStream (JDK 16+): no name, mtime 0, XFL 0, OS 255.
    let mut enc = flate2::GzBuilder::new()
        .operating_system(255)
        .write(Vec::with_capacity(data.len() / 2 + 64), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    enc.write_all(data).expect("write to Vec");
    enc.finish().expect("finish into Vec")
}

fn gzip_decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut pos = 0;
    // One member after another (as GZIPInputStream reads them), each checked by its CRC-32.
    while pos < data.len() {
        let rest = &data[pos..];
        if !rest.starts_with(&GZIP_MAGIC) {
            return Err(if pos == 0 {
                format!("expected gzip magic 1f 8b at the start of the stream, found {}", hex_prefix(rest))
            } else {
                format!(
                    "{} trailing bytes after the gzip member ending at byte {pos}: expected another \
                     member (1f 8b) or the end of the records area, found {}",
                    rest.len(),
                    hex_prefix(rest)
                )
            });
        }
        let mut member = flate2::bufread::GzDecoder::new(rest);
        let cap = (room(out.len(), limit) as u64).saturating_add(1);
        (&mut member).take(cap).read_to_end(&mut out).map_err(|e| {
            format!(
                "corrupt or truncated gzip member at byte {pos} ({e}); expected a gzip header, \
                 deflate data and the CRC-32/size trailer"
            )
        })?;
        if out.len() > limit {
            return Err(limit_error("gzip", limit));
        }
        let left = member.into_inner().len();
        if left >= rest.len() {
            return Err(format!("gzip member at byte {pos} consumed no input")); // cannot happen
        }
        pos = data.len() - left;
    }
    Ok(out)
}

fn hex_prefix(data: &[u8]) -> String {
    if data.is_empty() {
        return "end of input".to_string();
    }
    let shown: Vec<String> = data.iter().take(8).map(|b| format!("{b:02x}")).collect();
    shown.join(" ")
}

// ------------------------------------------------------------------------------------------------
// snappy (xerial snappy-java framing, or one raw block)

/// `SnappyCodec.MAGIC_HEADER` of snappy-java.
const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
/// Magic, then int32 BE version and int32 BE compatible version.
const XERIAL_HEADER_LEN: usize = 16;
/// snappy-java's `SnappyOutputStream` default block size (input bytes per chunk).
const XERIAL_BLOCK: usize = 32 * 1024;
/// The xerial header written by snappy-java 1.1.x: magic, version 1, compatible version 1.
const XERIAL_HEADER: [u8; 16] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1];

fn snappy_compress(data: &[u8]) -> Vec<u8> {
    let mut enc = snap::raw::Encoder::new();
    let mut out = Vec::with_capacity(XERIAL_HEADER_LEN + data.len() / 2 + 64);
    out.extend_from_slice(&XERIAL_HEADER);
    let mut buf = vec![0u8; snap::raw::max_compress_len(XERIAL_BLOCK)];
    for chunk in data.chunks(XERIAL_BLOCK) {
        // A 32 KiB block is far below snappy's input limit and `buf` has room for the worst case.
        let n = enc.compress(chunk, &mut buf).expect("32 KiB block always compresses");
        out.extend_from_slice(&(n as u32).to_be_bytes());
        out.extend_from_slice(&buf[..n]);
    }
    out
}

fn snappy_decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    if !data.starts_with(&XERIAL_MAGIC) {
        // No xerial header: snappy-java (and so Kafka) reads the whole input as one raw block.
        snappy_raw_into(data, &mut out, limit)
            .map_err(|e| format!("no xerial header (82 53 4e 41 50 50 59 00) and not a valid raw snappy block: {e}"))?;
        return Ok(out);
    }
    let mut pos = 0;
    loop {
        // At `pos` there is a xerial header (the first one, or a concatenated stream's).
        if data.len() < pos + XERIAL_HEADER_LEN {
            return Err(format!(
                "truncated xerial header at byte {pos}: expected {XERIAL_HEADER_LEN} bytes \
                 (magic, version, compatible version), found {}",
                data.len() - pos
            ));
        }
        let version = be_u32(data, pos + 8).unwrap_or(0) as i32;
        let compatible = be_u32(data, pos + 12).unwrap_or(0) as i32;
        if version < 1 || compatible < 1 {
            return Err(format!(
                "bad xerial header at byte {pos}: version {version}, compatible version \
                 {compatible}, expected both >= 1"
            ));
        }
        pos += XERIAL_HEADER_LEN;
        // Chunks until the end of the input, or until another header.
        loop {
            if pos == data.len() {
                return Ok(out);
            }
            let Some(len) = be_u32(data, pos) else {
                return Err(format!(
                    "truncated xerial chunk length at byte {pos}: expected 4 bytes, found {}",
                    data.len() - pos
                ));
            };
            if data[pos..].starts_with(&XERIAL_MAGIC) {
                break; // a concatenated stream: snappy-java skips its header
            }
            if len > i32::MAX as u32 {
                return Err(format!(
                    "bad xerial chunk length {} at byte {pos}: expected a non-negative int32",
                    len as i32
                ));
            }
            let start = pos + 4;
            let end = start + len as usize;
            let Some(chunk) = data.get(start..end) else {
                return Err(format!(
                    "truncated xerial chunk at byte {pos}: length says {len} bytes, only {} left",
                    data.len() - start
                ));
            };
            snappy_raw_into(chunk, &mut out, limit).map_err(|e| format!("bad xerial chunk at byte {pos}: {e}"))?;
            pos = end;
        }
    }
}

/// The most plain bytes one byte of a raw snappy block can stand for: a 3-byte copy element
/// (tag + 2-byte offset) yields at most 64 bytes, and no element does better.
const SNAPPY_MAX_EXPANSION: usize = 22;

/// Decode one raw snappy block and append it to `out`.
fn snappy_raw_into(block: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<(), String> {
    let n = snap::raw::decompress_len(block).map_err(|e| format!("bad raw snappy length preamble ({e})"))?;
    // The preamble is a length from disk: believe it only as far as the block can back it, so
    // a few bytes cannot make us allocate megabytes.
    let most = block.len().saturating_mul(SNAPPY_MAX_EXPANSION);
    if n > most {
        return Err(format!(
            "corrupt raw snappy block: its preamble says {n} bytes, but a {}-byte block decodes to at most {most}",
            block.len()
        ));
    }
    if n > room(out.len(), limit) {
        return Err(limit_error("snappy", limit));
    }
    let start = out.len();
    out.resize(start + n, 0);
    match snap::raw::Decoder::new().decompress(block, &mut out[start..]) {
        Ok(m) if m == n => Ok(()),
        Ok(m) => {
            out.truncate(start);
            Err(format!("raw snappy block decoded to {m} bytes, its preamble says {n}"))
        }
        Err(e) => {
            out.truncate(start);
            Err(format!("corrupt raw snappy block ({e})"))
        }
    }
}

// ------------------------------------------------------------------------------------------------
// lz4 (LZ4 frame format as Kafka's Lz4BlockOutputStream writes it)

const LZ4_MAGIC: u32 = 0x184D_2204;
/// Skippable frames: 0x184D2A50 ..= 0x184D2A5F.
const LZ4_SKIPPABLE_MASK: u32 = 0xFFFF_FFF0;
const LZ4_SKIPPABLE: u32 = 0x184D_2A50;
/// FLG: version 01, block independence, no checksums, no content size, no dictionary id.
const LZ4_KAFKA_FLG: u8 = 0x60;
/// BD: max block size 64 KiB (code 4).
const LZ4_KAFKA_BD: u8 = 0x40;
const LZ4_KAFKA_BLOCK: usize = 64 * 1024;
const LZ4_UNCOMPRESSED_BIT: u32 = 0x8000_0000;

fn xxh32(data: &[u8]) -> u32 {
    twox_hash::XxHash32::oneshot(0, data)
}

/// The most bytes an LZ4 block of `len` bytes can decode to: each byte of a match-length
/// extension adds at most 255 bytes, a token with its 2-byte offset at most 19 (LZ4 block format).
fn lz4_block_output_max(len: usize) -> usize {
    len.saturating_mul(255).saturating_add(64)
}

fn lz4_compress(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    out.extend_from_slice(&LZ4_MAGIC.to_le_bytes());
    out.push(LZ4_KAFKA_FLG);
    out.push(LZ4_KAFKA_BD);
    // Header checksum: second byte of XXH32 over the descriptor (FLG, BD), seed 0.
    out.push((xxh32(&[LZ4_KAFKA_FLG, LZ4_KAFKA_BD]) >> 8) as u8);
    let mut buf = vec![0u8; lz4_flex::block::get_maximum_output_size(LZ4_KAFKA_BLOCK)];
    for chunk in data.chunks(LZ4_KAFKA_BLOCK) {
        match lz4_flex::block::compress_into(chunk, &mut buf) {
            // Like Kafka: keep the compressed form only if it is strictly smaller.
            Ok(n) if n < chunk.len() => {
                out.extend_from_slice(&(n as u32).to_le_bytes());
                out.extend_from_slice(&buf[..n]);
            }
            _ => {
                out.extend_from_slice(&(chunk.len() as u32 | LZ4_UNCOMPRESSED_BIT).to_le_bytes());
                out.extend_from_slice(chunk);
            }
        }
    }
    out.extend_from_slice(&0u32.to_le_bytes()); // end mark
    out
}

fn lz4_decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut frames = 0usize;
    while pos < data.len() {
        let Some(magic) = le_u32(data, pos) else {
            return Err(format!(
                "truncated frame at byte {pos}: expected 4-byte magic 0x184D2204, found {} bytes",
                data.len() - pos
            ));
        };
        if magic & LZ4_SKIPPABLE_MASK == LZ4_SKIPPABLE {
            let Some(len) = le_u32(data, pos + 4) else {
                return Err(format!("truncated skippable frame at byte {pos}: expected a 4-byte size"));
            };
            let end = (pos + 8).saturating_add(len as usize);
            if end > data.len() {
                return Err(format!(
                    "truncated skippable frame at byte {pos}: size {len}, only {} bytes left",
                    data.len() - pos - 8
                ));
            }
            pos = end;
            continue;
        }
        if magic != LZ4_MAGIC {
            let what = if frames == 0 { "at the start of the stream" } else { "after the end of the previous frame" };
            return Err(format!(
                "expected frame magic 04 22 4d 18 (0x184D2204) {what} (byte {pos}), found {}",
                hex_prefix(&data[pos..])
            ));
        }
        pos = lz4_frame(data, pos, &mut out, limit)?;
        frames += 1;
    }
    if frames == 0 {
        return Err("no LZ4 frame in the stream (only skippable frames)".to_string());
    }
    Ok(out)
}

/// An LZ4 frame's descriptor (FLG and BD bytes, and the content size when present).
struct Lz4FrameHeader {
    block_checksums: bool,
    content_checksum: bool,
    content_size: Option<u64>,
    max_block: usize,
}

fn lz4_truncated(data: &[u8], what: &str, at: usize) -> String {
    format!("truncated frame: expected {what} at byte {at}, the stream ends at byte {}", data.len())
}

/// Read the descriptor of the frame whose magic is at `start`; returns it and the position of the
/// first block.
fn lz4_frame_header(data: &[u8], start: usize) -> Result<(Lz4FrameHeader, usize), String> {
    let mut pos = start + 4;
    let (Some(&flg), Some(&bd)) = (data.get(pos), data.get(pos + 1)) else {
        return Err(lz4_truncated(data, "the FLG and BD descriptor bytes", pos));
    };
    let version = flg >> 6;
    if version != 1 {
        return Err(format!("unsupported frame version {version} in FLG 0x{flg:02x} at byte {pos}, expected 1"));
    }
    if flg & 0x02 != 0 {
        return Err(format!("reserved bit 1 set in FLG 0x{flg:02x} at byte {pos}, expected 0"));
    }
    if flg & 0x01 != 0 {
        return Err(format!("FLG 0x{flg:02x} at byte {pos} asks for a dictionary id, which Kafka does not support"));
    }
    if flg & 0x20 == 0 {
        return Err(format!(
            "FLG 0x{flg:02x} at byte {pos} has dependent blocks; Kafka supports independent blocks only (bit 5 set)"
        ));
    }
    if bd & 0x8F != 0 {
        return Err(format!("reserved bits set in BD 0x{bd:02x} at byte {}, expected 0", pos + 1));
    }
    let max_block = match (bd >> 4) & 7 {
        4 => 64 << 10,
        5 => 256 << 10,
        6 => 1 << 20,
        7 => 4 << 20,
        code => {
            return Err(format!(
                "bad block maximum size code {code} in BD 0x{bd:02x} at byte {}, expected 4..7 (64 KiB..4 MiB)",
                pos + 1
            ))
        }
    };
    pos += 2;
    let mut content_size = None;
    if flg & 0x08 != 0 {
        let Some(b) = data.get(pos..pos + 8) else {
            return Err(lz4_truncated(data, "an 8-byte content size", pos));
        };
        let mut le = [0u8; 8];
        le.copy_from_slice(b);
        content_size = Some(u64::from_le_bytes(le));
        pos += 8;
    }
    // Header checksum byte: present, but not checked (KAFKA-3160: old Kafka hashed the magic too).
    if data.get(pos).is_none() {
        return Err(lz4_truncated(data, "the header checksum byte", pos));
    }
    pos += 1;
    let header =
        Lz4FrameHeader { block_checksums: flg & 0x10 != 0, content_checksum: flg & 0x04 != 0, content_size, max_block };
    Ok((header, pos))
}

/// Decode the frame whose magic is at `start`, appending to `out`; returns the position after it.
fn lz4_frame(data: &[u8], start: usize, out: &mut Vec<u8>, limit: usize) -> Result<usize, String> {
    let (header, mut pos) = lz4_frame_header(data, start)?;
    let max_block = header.max_block;
    let frame_start = out.len();
    loop {
        let Some(word) = le_u32(data, pos) else {
            return Err(lz4_truncated(data, "a 4-byte block size or the end mark (00 00 00 00)", pos));
        };
        let block_at = pos;
        pos += 4;
        if word == 0 {
            break; // end mark
        }
        let stored = word & LZ4_UNCOMPRESSED_BIT != 0;
        let len = (word & !LZ4_UNCOMPRESSED_BIT) as usize;
        if len > max_block {
            return Err(format!(
                "block at byte {block_at} is {len} bytes, over the frame's maximum block size {max_block}"
            ));
        }
        let Some(block) = data.get(pos..pos + len) else {
            return Err(format!(
                "truncated frame: block at byte {block_at} is {len} bytes, only {} left",
                data.len() - pos
            ));
        };
        pos += len;
        if header.block_checksums {
            let Some(want) = le_u32(data, pos) else {
                return Err(lz4_truncated(data, "a 4-byte block checksum", pos));
            };
            let got = xxh32(block);
            if got != want {
                return Err(format!(
                    "block checksum mismatch for the block at byte {block_at}: stored 0x{want:08x}, computed 0x{got:08x}"
                ));
            }
            pos += 4;
        }
        lz4_append_block(block, block_at, stored, max_block, out, limit)?;
    }
    if header.content_checksum {
        let Some(want) = le_u32(data, pos) else {
            return Err(lz4_truncated(data, "the 4-byte content checksum after the end mark", pos));
        };
        let mut h = twox_hash::XxHash32::with_seed(0);
        h.write(&out[frame_start..]);
        let got = h.finish_32();
        if got != want {
            return Err(format!(
                "content checksum mismatch for the frame at byte {start}: stored 0x{want:08x}, computed 0x{got:08x}"
            ));
        }
        pos += 4;
    }
    if let Some(size) = header.content_size {
        let got = (out.len() - frame_start) as u64;
        if got != size {
            return Err(format!("frame at byte {start} decoded to {got} bytes, its header says {size}"));
        }
    }
    Ok(pos)
}

/// Append one block's bytes to `out`: a stored block as it is, a compressed one decoded (within
/// `limit`, and at most the frame's `max_block` bytes).
fn lz4_append_block(
    block: &[u8],
    block_at: usize,
    stored: bool,
    max_block: usize,
    out: &mut Vec<u8>,
    limit: usize,
) -> Result<(), String> {
    let at = out.len();
    if stored {
        if block.len() > room(at, limit) {
            return Err(limit_error("lz4", limit));
        }
        out.extend_from_slice(block);
        return Ok(());
    }
    // Room for what this block can decode to, not for the frame's maximum: zeroing
    // megabytes for a block of a few bytes would make damaged streams slow to reject.
    let len = block.len();
    let space = max_block.min(lz4_block_output_max(len)).min(room(at, limit));
    out.resize(at + space, 0);
    match lz4_flex::block::decompress_into(block, &mut out[at..]) {
        Ok(n) => {
            out.truncate(at + n);
            Ok(())
        }
        Err(e) => {
            out.truncate(at);
            if space < max_block.min(lz4_block_output_max(len)) {
                // It may only have run out of room under the limit.
                let mut probe = vec![0u8; max_block.min(lz4_block_output_max(len))];
                if lz4_flex::block::decompress_into(block, &mut probe).is_ok() {
                    return Err(limit_error("lz4", limit));
                }
            }
            Err(format!(
                "corrupt compressed block at byte {block_at} ({e}); expected an LZ4 block of at most {max_block} bytes decoded"
            ))
        }
    }
}

// ------------------------------------------------------------------------------------------------
// zstd

/// Zstd frame magic 28 b5 2f fd, read little-endian.
const ZSTD_MAGIC: u32 = 0xFD2F_B528;
/// Skippable frames: 0x184D2A50 ..= 0x184D2A5F (same as LZ4's).
const ZSTD_SKIPPABLE: u32 = 0x184D_2A50;

fn zstd_compress(data: &[u8]) -> Vec<u8> {
    // Only `Uncompressed` and `Fastest` are implemented by ruzstd's encoder; the others panic.
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

fn zstd_decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
    use ruzstd::decoding::FrameDecoder;

    let mut out = Vec::new();
    let mut input = data;
    let mut decoder = FrameDecoder::new();
    let mut frames = 0usize;
    while !input.is_empty() {
        let at = data.len() - input.len();
        match le_u32(input, 0) {
            None => {
                return Err(format!(
                    "truncated stream at byte {at}: expected a 4-byte frame magic (28 b5 2f fd), found {} bytes",
                    input.len()
                ))
            }
            Some(m) if m == ZSTD_MAGIC || m & 0xFFFF_FFF0 == ZSTD_SKIPPABLE => {}
            Some(_) => {
                let what = if at == 0 { "at the start of the stream" } else { "after the previous frame" };
                return Err(format!(
                    "expected zstd frame magic 28 b5 2f fd {what} (byte {at}), found {}",
                    hex_prefix(input)
                ));
            }
        }
        match decoder.reset(&mut input) {
            Ok(()) => {}
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame { length, .. })) => {
                let Some(rest) = input.get(length as usize..) else {
                    return Err(format!(
                        "truncated skippable frame at byte {at}: size {length}, only {} bytes left",
                        input.len()
                    ));
                };
                input = rest;
                continue;
            }
            Err(e) => {
                let why = if format!("{e:?}").contains("UnexpectedEof") { "truncated" } else { "bad" };
                return Err(format!("{why} frame header at byte {at} ({e})"));
            }
        }
        zstd_frame_blocks(&mut decoder, &mut input, at, &mut out, limit)?;
        frames += 1;
    }
    if frames == 0 {
        return Err("no zstd frame in the stream (only skippable frames)".to_string());
    }
    Ok(out)
}

/// Decode the blocks of the frame whose header `decoder` has read (it started at byte `at`),
/// appending within `limit` to `out`, and check its content checksum.
fn zstd_frame_blocks(
    decoder: &mut ruzstd::decoding::FrameDecoder,
    input: &mut &[u8],
    at: usize,
    out: &mut Vec<u8>,
    limit: usize,
) -> Result<(), String> {
    use ruzstd::decoding::BlockDecodingStrategy;
    loop {
        decoder.decode_blocks(&mut *input, BlockDecodingStrategy::UptoBytes(1 << 20)).map_err(|e| {
            if format!("{e:?}").contains("UnexpectedEof") {
                format!("truncated frame starting at byte {at}: the stream ends before the frame's last block ({e})")
            } else {
                format!("corrupt frame starting at byte {at} ({e})")
            }
        })?;
        // Before the frame ends, the decoder keeps its window; `collect` drains the rest.
        if decoder.can_collect() > room(out.len(), limit) {
            return Err(limit_error("zstd", limit));
        }
        if let Some(bytes) = decoder.collect() {
            out.extend_from_slice(&bytes);
        }
        if decoder.is_finished() {
            break;
        }
    }
    if decoder.can_collect() > 0 {
        if decoder.can_collect() > room(out.len(), limit) {
            return Err(limit_error("zstd", limit));
        }
        if let Some(bytes) = decoder.collect() {
            out.extend_from_slice(&bytes);
        }
    }
    if let (Some(want), Some(got)) = (decoder.get_checksum_from_data(), decoder.get_calculated_checksum()) {
        if want != got {
            return Err(format!(
                "content checksum mismatch for the frame at byte {at}: stored 0x{want:08x}, computed 0x{got:08x}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODECS: [Compression; 4] = [Compression::Gzip, Compression::Snappy, Compression::Lz4, Compression::Zstd];

    /// Deterministic pseudo-random bytes (xorshift), with some repetition so codecs compress.
    fn sample(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        let mut v = Vec::with_capacity(len);
        while v.len() < len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x & 3 == 0 && v.len() > 64 {
                // copy an earlier run: compressible structure
                let back = (x >> 8) as usize % v.len().min(60_000) + 1;
                let run = ((x >> 32) as usize % 40 + 4).min(len - v.len());
                let from = v.len() - back;
                for i in 0..run {
                    let b = v[from + i % back];
                    v.push(b);
                }
            } else {
                v.push((x >> 24) as u8 % 16 + b'a');
            }
        }
        v
    }

    fn incompressible(len: usize) -> Vec<u8> {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..len)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (x >> 56) as u8
            })
            .collect()
    }

    fn roundtrip(codec: Compression, data: &[u8]) {
        let c = compress(codec, data);
        let d = decompress(codec, &c).unwrap_or_else(|e| panic!("{}: {e}", codec.name()));
        assert!(d == data, "{}: round trip of {} bytes differs", codec.name(), data.len());
    }

    #[test]
    fn codes_and_names() {
        for code in 0..=4 {
            let c = Compression::from_code(code).unwrap();
            assert_eq!(c.code(), code);
        }
        assert_eq!(Compression::from_code(5), None);
        assert_eq!(Compression::Lz4.name(), "lz4");
    }

    #[test]
    fn none_is_identity() {
        assert_eq!(compress(Compression::None, b"abc"), b"abc");
        assert_eq!(decompress(Compression::None, b"abc").unwrap(), b"abc");
        assert_eq!(decompress(Compression::None, b"").unwrap(), b"");
    }

    #[test]
    fn roundtrip_small() {
        for codec in CODECS {
            roundtrip(codec, b"");
            roundtrip(codec, b"x");
            roundtrip(codec, b"hello kafka hello kafka hello kafka");
        }
    }

    #[test]
    fn roundtrip_multi_block() {
        let big = sample(300 * 1024 + 17, 7);
        let noise = incompressible(200 * 1024 + 3);
        for codec in CODECS {
            roundtrip(codec, &big);
            roundtrip(codec, &noise);
            roundtrip(codec, &vec![0u8; 1 << 20]);
        }
    }

    #[test]
    fn empty_input_is_an_error() {
        for codec in CODECS {
            let e = decompress(codec, b"").unwrap_err();
            assert!(e.contains("empty"), "{e}");
        }
    }

    // --- known-good vectors ------------------------------------------------------------------

    /// `new GZIPOutputStream(out)` of "hello kafka" on OpenJDK 17 (header 1f 8b 08 00 00000000 00 ff).
    const JAVA_GZIP_HELLO: [u8; 31] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x4e,
        0x4c, 0xcb, 0x4e, 0x04, 0x00, 0xd1, 0x75, 0x81, 0x6c, 0x0b, 0x00, 0x00, 0x00,
    ];

    #[test]
    fn gzip_known_vector() {
        assert_eq!(decompress(Compression::Gzip, &JAVA_GZIP_HELLO).unwrap(), b"hello kafka");
        // Our header is the same as Java's.
        assert_eq!(compress(Compression::Gzip, b"hello kafka")[..10], JAVA_GZIP_HELLO[..10]);
        // Two members, as GZIPInputStream reads them.
        let mut two = JAVA_GZIP_HELLO.to_vec();
        two.extend_from_slice(&compress(Compression::Gzip, b"!"));
        assert_eq!(decompress(Compression::Gzip, &two).unwrap(), b"hello kafka!");
        // Bytes after the last member that are not another member.
        let mut trail = JAVA_GZIP_HELLO.to_vec();
        trail.extend_from_slice(b"\0\0");
        let e = decompress(Compression::Gzip, &trail).unwrap_err();
        assert!(e.contains("2 trailing bytes") && e.contains("byte 31"), "{e}");
        // A flipped CRC-32 byte.
        let mut bad = JAVA_GZIP_HELLO;
        bad[23] ^= 1;
        assert!(decompress(Compression::Gzip, &bad).is_err());
    }

    /// snappy-java `SnappyOutputStream` of "hello": header, chunk length 7, raw block
    /// (varint length 5, literal tag (5-1)<<2, "hello").
    const XERIAL_HELLO: [u8; 27] = [
        0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 7, 0x05, 0x10, b'h', b'e', b'l',
        b'l', b'o',
    ];

    #[test]
    fn snappy_known_vectors() {
        assert_eq!(compress(Compression::Snappy, b"hello"), XERIAL_HELLO);
        assert_eq!(decompress(Compression::Snappy, &XERIAL_HELLO).unwrap(), b"hello");
        // Raw block without the xerial header (librdkafka / old clients).
        assert_eq!(decompress(Compression::Snappy, &XERIAL_HELLO[20..]).unwrap(), b"hello");
        // Empty input: header only, as snappy-java writes it.
        assert_eq!(compress(Compression::Snappy, b""), XERIAL_HEADER);
        assert_eq!(decompress(Compression::Snappy, &XERIAL_HEADER).unwrap(), b"");
        // Concatenated xerial streams.
        let mut two = XERIAL_HELLO.to_vec();
        two.extend_from_slice(&XERIAL_HELLO);
        assert_eq!(decompress(Compression::Snappy, &two).unwrap(), b"hellohello");
        // Chunks are 32 KiB of input.
        let c = compress(Compression::Snappy, &vec![b'a'; 3 * XERIAL_BLOCK + 1]);
        let first = be_u32(&c, 16).unwrap() as usize;
        let raw = &c[20..20 + first];
        assert_eq!(snap::raw::decompress_len(raw).unwrap(), XERIAL_BLOCK);
    }

    /// Kafka's `Lz4BlockOutputStream` frame of "hello": magic, FLG 0x60, BD 0x40, HC 0x82, one
    /// uncompressed block (LZ4 cannot shrink 5 bytes), end mark.
    const KAFKA_LZ4_HELLO: [u8; 20] =
        [0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82, 0x05, 0x00, 0x00, 0x80, b'h', b'e', b'l', b'l', b'o', 0, 0, 0, 0];

    #[test]
    fn lz4_known_vectors() {
        assert_eq!(compress(Compression::Lz4, b"hello"), KAFKA_LZ4_HELLO);
        assert_eq!(decompress(Compression::Lz4, &KAFKA_LZ4_HELLO).unwrap(), b"hello");
        // KAFKA-3160: magic v0/v1 hashed the magic bytes too; such a frame still decodes.
        let mut old = KAFKA_LZ4_HELLO;
        old[6] = (xxh32(&KAFKA_LZ4_HELLO[..6]) >> 8) as u8;
        assert_ne!(old[6], KAFKA_LZ4_HELLO[6]);
        assert_eq!(decompress(Compression::Lz4, &old).unwrap(), b"hello");
        // 64 KiB blocks.
        let c = compress(Compression::Lz4, &vec![b'a'; 3 * LZ4_KAFKA_BLOCK + 1]);
        let first = (le_u32(&c, 7).unwrap() & !LZ4_UNCOMPRESSED_BIT) as usize;
        let mut block = vec![0u8; LZ4_KAFKA_BLOCK];
        let n = lz4_flex::block::decompress_into(&c[11..11 + first], &mut block).unwrap();
        assert_eq!(n, LZ4_KAFKA_BLOCK);
    }

    #[test]
    fn lz4_checksums_and_content_size() {
        // Frame with block checksum, content size and content checksum (FLG 0x7c, BD 0x70).
        let payload = b"hello hello hello hello";
        let mut f = LZ4_MAGIC.to_le_bytes().to_vec();
        f.extend_from_slice(&[0x7c, 0x70]);
        f.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        f.push((xxh32(&f[4..]) >> 8) as u8);
        f.extend_from_slice(&(payload.len() as u32 | LZ4_UNCOMPRESSED_BIT).to_le_bytes());
        f.extend_from_slice(payload);
        f.extend_from_slice(&xxh32(payload).to_le_bytes());
        f.extend_from_slice(&[0, 0, 0, 0]);
        f.extend_from_slice(&xxh32(payload).to_le_bytes());
        assert_eq!(decompress(Compression::Lz4, &f).unwrap(), payload);

        let mut bad = f.clone();
        let n = bad.len();
        bad[n - 1] ^= 1; // content checksum
        assert!(decompress(Compression::Lz4, &bad).unwrap_err().contains("content checksum"));
        let mut bad = f.clone();
        bad[20] ^= 1; // payload byte: block checksum catches it
        assert!(decompress(Compression::Lz4, &bad).unwrap_err().contains("block checksum"));
        let mut bad = f.clone();
        bad[6] = 99; // content size
        assert!(decompress(Compression::Lz4, &bad).is_err());
        // Dependent blocks are refused, like Kafka does.
        let mut dep = KAFKA_LZ4_HELLO;
        dep[4] = 0x40;
        assert!(decompress(Compression::Lz4, &dep).unwrap_err().contains("dependent"));
        // Two frames and a skippable frame.
        let mut multi = KAFKA_LZ4_HELLO.to_vec();
        multi.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9]);
        multi.extend_from_slice(&KAFKA_LZ4_HELLO);
        assert_eq!(decompress(Compression::Lz4, &multi).unwrap(), b"hellohello");
        // Trailing garbage after the end mark.
        let mut trail = KAFKA_LZ4_HELLO.to_vec();
        trail.push(1);
        assert!(decompress(Compression::Lz4, &trail).unwrap_err().contains("magic"));
    }

    /// `zstd -c` (v1.5.4) of "hello kafka": magic, FHD 0x04 (content checksum), window descriptor
    /// 0x58, last raw block of 11 bytes, low 32 bits of XXH64.
    const ZSTD_HELLO: [u8; 24] = [
        0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x59, 0x00, 0x00, b'h', b'e', b'l', b'l', b'o', b' ', b'k', b'a', b'f',
        b'k', b'a', 0x7c, 0xc9, 0xa6, 0x2d,
    ];

    #[test]
    fn zstd_known_vector() {
        assert_eq!(decompress(Compression::Zstd, &ZSTD_HELLO).unwrap(), b"hello kafka");
        let mut bad = ZSTD_HELLO;
        bad[23] ^= 0x40;
        assert!(decompress(Compression::Zstd, &bad).unwrap_err().contains("checksum"));
        let c = compress(Compression::Zstd, b"hello kafka");
        assert_eq!(c[..4], [0x28, 0xb5, 0x2f, 0xfd]);
        // Skippable frame, then two frames.
        let mut multi = vec![0x50, 0x2a, 0x4d, 0x18, 1, 0, 0, 0, 7];
        multi.extend_from_slice(&ZSTD_HELLO);
        multi.extend_from_slice(&c);
        assert_eq!(decompress(Compression::Zstd, &multi).unwrap(), b"hello kafkahello kafka");
    }

    // --- robustness --------------------------------------------------------------------------

    #[test]
    fn wrong_magic_is_reported() {
        let junk = b"definitely not compressed data";
        for codec in [Compression::Gzip, Compression::Lz4, Compression::Zstd] {
            let e = decompress(codec, junk).unwrap_err();
            assert!(e.contains("magic"), "{}: {e}", codec.name());
        }
        // snappy falls back to a raw block, which this is not.
        let e = decompress(Compression::Snappy, junk).unwrap_err();
        assert!(e.contains("raw snappy"), "{e}");
    }

    #[test]
    fn every_truncation_is_an_error() {
        let data = sample(3000, 3);
        for codec in CODECS {
            let c = compress(codec, &data);
            for cut in 0..c.len() {
                let r = decompress(codec, &c[..cut]);
                if codec == Compression::Snappy {
                    // xerial has no end marker: a cut exactly between chunks is a valid shorter
                    // stream (the batch's recordsCount catches it). Here there is one chunk.
                    if cut == XERIAL_HEADER_LEN {
                        assert_eq!(r.unwrap(), b"");
                        continue;
                    }
                }
                assert!(r.is_err(), "{}: cut at {cut} of {} decoded", codec.name(), c.len());
            }
        }
    }

    #[test]
    fn snappy_truncation_between_chunks_gives_a_prefix() {
        let data = sample(100 * 1024, 5);
        let c = compress(Compression::Snappy, &data);
        // Chunk boundaries, then cuts near each of them and a sparse sweep of the rest.
        let mut bounds = vec![XERIAL_HEADER_LEN];
        while let Some(len) = be_u32(&c, *bounds.last().unwrap()) {
            bounds.push(bounds.last().unwrap() + 4 + len as usize);
        }
        assert_eq!(bounds.len(), 5, "4 chunks of 32 KiB input");
        let near = |cut: usize| bounds.iter().any(|&b| cut + 40 >= b && cut <= b + 40);
        for cut in (0..c.len()).filter(|&cut| near(cut) || cut % 101 == 0) {
            match decompress(Compression::Snappy, &c[..cut]) {
                Ok(d) => {
                    let k = bounds.iter().position(|&b| b == cut).expect("Ok only at a boundary");
                    assert_eq!(d, data[..k * XERIAL_BLOCK], "cut {cut}");
                }
                Err(e) => assert!(!bounds.contains(&cut), "cut {cut}: {e}"),
            }
        }
    }

    #[test]
    fn flipped_bytes_never_panic() {
        let data = sample(2000, 11);
        for codec in CODECS {
            let c = compress(codec, &data);
            for i in 0..c.len() {
                for mask in [0x01u8, 0x80, 0xff] {
                    let mut bad = c.clone();
                    bad[i] ^= mask;
                    let r = decompress(codec, &bad);
                    // Checksummed parts must be caught: gzip everywhere; zstd in our frames.
                    if codec == Compression::Gzip && i >= 10 {
                        assert!(r.is_err() || r.as_deref() == Ok(&data[..]), "gzip flip at {i}");
                    }
                    if let Ok(d) = r {
                        if codec == Compression::Zstd {
                            assert!(d == data, "zstd flip at {i} gave other data without error");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn random_garbage_never_panics() {
        let mut x: u64 = 12345;
        for round in 0..3000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 200) as usize;
            let mut g = incompressible(len + round % 7);
            // Give the parsers a valid-looking start half of the time.
            for codec in CODECS {
                if round % 2 == 0 {
                    let head: &[u8] = match codec {
                        Compression::Gzip => &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff],
                        Compression::Snappy => &XERIAL_HEADER,
                        Compression::Lz4 => &[0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82],
                        _ => &[0x28, 0xb5, 0x2f, 0xfd],
                    };
                    let mut v = head.to_vec();
                    v.extend_from_slice(&g);
                    let _ = decompress(codec, &v);
                } else {
                    let _ = decompress(codec, &g);
                }
            }
            g.clear();
        }
    }

    #[test]
    fn output_limit_is_enforced() {
        let data = vec![0u8; 300 * 1024];
        for codec in CODECS {
            let c = compress(codec, &data);
            assert_eq!(decompress_limited(codec, &c, data.len()).unwrap(), data);
            let e = decompress_limited(codec, &c, data.len() - 1).unwrap_err();
            assert!(e.contains("limit"), "{}: {e}", codec.name());
        }
        // Raw snappy whose preamble claims ~4 GiB: refused before allocating.
        let bomb = [0xff, 0xff, 0xff, 0xff, 0x0f, 0x00];
        let e = decompress(Compression::Snappy, &bomb).unwrap_err();
        assert!(e.contains("decodes to at most 132"), "{e}");
    }

    #[test]
    fn a_snappy_preamble_larger_than_its_block_can_back_is_refused() {
        // A 8-byte block whose preamble says 100 MiB made the decoder allocate and zero 100 MiB
        // before finding the block corrupt (found while writing the fuzz targets).
        let mut block = Vec::new();
        let mut n: u32 = 100 << 20;
        while n >= 0x80 {
            block.push(n as u8 | 0x80);
            n >>= 7;
        }
        block.push(n as u8);
        block.extend_from_slice(&[0x00, 0x00]);
        let e = decompress(Compression::Snappy, &block).unwrap_err();
        assert!(e.contains("preamble says 104857600 bytes"), "{e}");
        // The bound never refuses a real block: 64 KiB of one byte compresses about 21:1.
        let data = vec![7u8; 64 * 1024];
        roundtrip(Compression::Snappy, &data);
        let raw = snap::raw::Encoder::new().compress_vec(&data).unwrap();
        assert!(data.len() <= raw.len() * SNAPPY_MAX_EXPANSION);
        assert_eq!(decompress(Compression::Snappy, &raw).unwrap(), data);
    }

    #[test]
    fn an_lz4_block_gets_room_for_what_it_can_decode_to_not_the_frame_maximum() {
        // 4 MiB maximum block size (BD 0x70), then 1000 one-byte blocks (token 0: no literals,
        // no match), each decoding to nothing. Each used to zero 4 MiB of output first.
        let mut frame = LZ4_MAGIC.to_le_bytes().to_vec();
        frame.extend_from_slice(&[0x60, 0x70, 0x00]);
        for _ in 0..1000 {
            frame.extend_from_slice(&1u32.to_le_bytes());
            frame.push(0x00);
        }
        frame.extend_from_slice(&0u32.to_le_bytes());
        let mut out = Vec::new();
        let _ = lz4_frame(&frame, 0, &mut out, MAX_DECOMPRESSED);
        assert!(out.capacity() <= lz4_block_output_max(1), "output grew to {} bytes", out.capacity());
        // The bound is the format's: a block of all-zero matches reaches about 255:1 and decodes.
        let data = vec![0u8; 64 * 1024];
        let frame = lz4_compress(&data);
        let block_len = le_u32(&frame, 7).unwrap() as usize;
        assert!(block_len < data.len(), "the block is compressed");
        assert!(data.len() <= lz4_block_output_max(block_len));
        roundtrip(Compression::Lz4, &data);
    }
}
