//! Reads through a memory map that another process may cut short. A live broker truncates
//! segments and indexes (recovery, retention, a follower's truncation, `trimToValidSize`); a
//! page of a map past the file's new end faults with SIGBUS, which would kill klog (exit 135)
//! in the middle of a read. Every map klog reads through is registered here, and a SIGBUS
//! handler answers a fault inside a registered map by putting a page of zeros over the faulting
//! page and letting the read go on; the map is marked hit. When the map is dropped, a hit, or a
//! file now shorter than what was mapped, is noted as "changed while read", and the command
//! ends with a clean error naming the file ([`take_changed`]) instead of a signal.
//!
//! A fault outside every registered map is not klog's to answer: the handler puts back the
//! default action and returns, so the fault happens again and ends the process as before.
//!
//! The handler touches only atomics and calls `mmap` and `sigaction`, which are plain system
//! calls on Linux. The registry is a fixed table of slots claimed with compare-and-swap; a slot
//! is cleared before its map is unmapped, so a fault never matches a range that is gone.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

/// How many maps may be registered at once (far above what any command holds; a map that finds
/// no free slot is read into memory instead, see [`Registration::claim`]).
const SLOTS: usize = 1024;

#[allow(clippy::declare_interior_mutable_const)] // only used to initialise the tables
const FREE: AtomicUsize = AtomicUsize::new(0);
#[allow(clippy::declare_interior_mutable_const)]
const CLEAR: AtomicBool = AtomicBool::new(false);
static USED: [AtomicBool; SLOTS] = [CLEAR; SLOTS];
static STARTS: [AtomicUsize; SLOTS] = [FREE; SLOTS];
static ENDS: [AtomicUsize; SLOTS] = [FREE; SLOTS];
static HIT: [AtomicBool; SLOTS] = [CLEAR; SLOTS];
static PAGE_BYTES: AtomicUsize = AtomicUsize::new(4096);
static INSTALL: Once = Once::new();
/// Files that changed under a map while it was read, oldest first: (path, mapped bytes, bytes
/// at the end).
static CHANGED: Mutex<Vec<(PathBuf, u64, u64)>> = Mutex::new(Vec::new());

/// Install the SIGBUS handler (once per process).
fn install() {
    INSTALL.call_once(|| {
        // SAFETY: sysconf reads a constant of the system.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if page > 0 {
            PAGE_BYTES.store(page as usize, Ordering::Relaxed);
        }
        // SAFETY: `sigaction` is a plain C struct, zeroed then filled; the handler has the
        // SA_SIGINFO signature and touches only atomics and async-signal-safe system calls.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    });
}

extern "C" fn on_sigbus(_signal: libc::c_int, info: *mut libc::siginfo_t, _context: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for a SA_SIGINFO handler.
    let address = unsafe { (*info).si_addr() } as usize;
    let page = PAGE_BYTES.load(Ordering::Relaxed);
    for slot in 0..SLOTS {
        let start = STARTS[slot].load(Ordering::Acquire);
        if start == 0 || address < start || address >= ENDS[slot].load(Ordering::Acquire) {
            continue;
        }
        let at = address & !(page - 1);
        // SAFETY: the page lies inside a live read-only map this process made (its slot is
        // cleared before it is unmapped); MAP_FIXED replaces just that page with zeros.
        let zeros = unsafe {
            libc::mmap(
                at as *mut libc::c_void,
                page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if zeros != libc::MAP_FAILED {
            HIT[slot].store(true, Ordering::Release);
            return;
        }
        break;
    }
    // Not a map klog registered: the default action, so the fault repeats and ends the process.
    // SAFETY: as in `install`; SIG_DFL needs no handler.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

/// A map's place in the registry; cleared when dropped (before the map is unmapped: keep it
/// declared before the map in the struct that owns both).
#[derive(Debug)]
pub struct Registration {
    slot: usize,
    path: PathBuf,
    mapped_bytes: u64,
}

impl Registration {
    /// Register the map of `path` at `[start, start + len)`; `None` when every slot is taken.
    pub fn claim(path: &Path, start: *const u8, len: usize) -> Option<Registration> {
        install();
        let slot =
            (0..SLOTS).find(|&s| USED[s].compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed).is_ok())?;
        HIT[slot].store(false, Ordering::Release);
        ENDS[slot].store(start as usize + len, Ordering::Release);
        STARTS[slot].store(start as usize, Ordering::Release);
        Some(Registration { slot, path: path.to_path_buf(), mapped_bytes: len as u64 })
    }

    /// Whether a read of this map has met a page past the file's end.
    pub fn was_hit(&self) -> bool {
        HIT[self.slot].load(Ordering::Acquire)
    }

    /// Note the file as changed while read if the map was hit or the file is now shorter than
    /// what was mapped (`size_now`: its length now, if it could be read).
    pub fn finish(&self, size_now: Option<u64>) {
        let shorter = size_now.is_some_and(|n| n < self.mapped_bytes);
        if self.was_hit() || shorter {
            let now = size_now.unwrap_or(0).min(self.mapped_bytes);
            CHANGED.lock().unwrap_or_else(|e| e.into_inner()).push((self.path.clone(), self.mapped_bytes, now));
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        STARTS[self.slot].store(0, Ordering::Release);
        ENDS[self.slot].store(0, Ordering::Release);
        HIT[self.slot].store(false, Ordering::Release);
        USED[self.slot].store(false, Ordering::Release);
    }
}

/// The oldest file noted as changed under a map and not yet taken: (path, the bytes that were
/// mapped, its length at the end).
pub fn take_changed() -> Option<(PathBuf, u64, u64)> {
    let mut changed = CHANGED.lock().unwrap_or_else(|e| e.into_inner());
    (!changed.is_empty()).then(|| changed.remove(0))
}

/// Forget every file noted as changed (a command starting afresh in a long-lived process).
pub fn clear_changed() {
    CHANGED.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::segment::map_file;
    use std::fs;

    /// #46: a file cut short under a live map is read as zeros past its new end and reported as
    /// changed, never a SIGBUS (before the guard this test process died with signal 7).
    #[test]
    fn a_file_cut_short_under_a_map_reads_zeros_and_is_reported_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("00000000000000000000.log");
        let page = PAGE_BYTES.load(Ordering::Relaxed).max(4096);
        fs::write(&path, vec![7u8; page * 4]).unwrap();
        let bytes = map_file(&path).unwrap().unwrap();
        assert_eq!(bytes[page * 3], 7);
        fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(page as u64).unwrap();
        // Pages past the new end: zeros, not a signal. The first page is still the file's.
        let sum: u64 = bytes[page * 2..].iter().map(|b| u64::from(*b)).sum();
        assert_eq!(sum, 0);
        assert_eq!(bytes[0], 7);
        drop(bytes);
        // Other tests may report their files meanwhile: look for this one.
        let mut reported = Vec::new();
        while let Some(changed) = take_changed() {
            reported.push(changed);
        }
        assert!(reported.contains(&(path, (page * 4) as u64, page as u64)), "{reported:?}");
    }

    #[test]
    fn a_file_cut_short_but_never_read_past_its_end_is_reported_too() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        fs::write(&path, vec![1u8; 10_000]).unwrap();
        let bytes = map_file(&path).unwrap().unwrap();
        fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(100).unwrap();
        assert_eq!(bytes[0], 1);
        drop(bytes);
        // Other tests may report their files meanwhile: look for this one.
        let mut seen = false;
        while let Some((p, _, now)) = take_changed() {
            seen |= p == path && now == 100;
        }
        assert!(seen);
    }

    #[test]
    fn a_slot_is_free_again_once_its_map_is_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        fs::write(&path, b"abc").unwrap();
        for _ in 0..SLOTS * 2 {
            let bytes = map_file(&path).unwrap().unwrap();
            assert_eq!(&bytes[..], b"abc");
        }
    }
}
