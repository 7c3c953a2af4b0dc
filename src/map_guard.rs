//! Reads through a memory map that another process may cut short. A live broker truncates
//! segments and indexes (recovery, retention, a follower's truncation, `trimToValidSize`); a
//! page of a map past the file's new end faults with SIGBUS, which would kill klog (exit 135)
//! in the middle of a read. Every map klog reads through is registered here, and a SIGBUS
//! handler answers a fault inside a registered map by putting a page of zeros over the faulting
//! page and letting the read go on; the map is marked hit. When the map is dropped, a hit, or a
//! file now shorter than what was mapped, is noted as "changed while read", and the command
//! ends with a clean error naming the file ([`watch`]) instead of a signal.
//!
//! A note belongs to the command that made the map: [`watch`] gives a command run its own
//! watch, maps made on its thread (or on its workers, which [`within`] the watch) are noted
//! under it, and only it takes them. The lab runs commands of several sessions in one process,
//! and one command's cut file is never another's error.
//!
//! A fault outside every registered map is not klog's to answer: the handler puts back the
//! default action and returns, so the fault happens again and ends the process as before.
//!
//! The handler touches only atomics and calls `mmap` and `sigaction`, which are plain system
//! calls on Linux. The registry is a fixed table of slots claimed with compare-and-swap; a slot
//! is cleared before its map is unmapped, so a fault never matches a range that is gone.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
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
/// Files that changed under a map while it was read, oldest first: the watch that made the map,
/// and (path, mapped bytes, bytes at the end).
static CHANGED: Mutex<Vec<(u64, Changed)>> = Mutex::new(Vec::new());
/// The next watch's number (0 is "no watch": maps made outside every watch are not noted).
static NEXT_WATCH: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The watch maps made on this thread are noted under.
    static WATCH: Cell<u64> = const { Cell::new(0) };
}

/// A file that changed under a map while it was read: its path, the bytes that were mapped,
/// and its length at the end.
pub type Changed = (PathBuf, u64, u64);

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
    watch: u64,
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
        Some(Registration { slot, watch: WATCH.get(), path: path.to_path_buf(), mapped_bytes: len as u64 })
    }

    /// Whether a read of this map has met a page past the file's end.
    pub fn was_hit(&self) -> bool {
        HIT[self.slot].load(Ordering::Acquire)
    }

    /// Note the file as changed while read if the map was hit or the file is now shorter than
    /// what was mapped (`size_now`: its length now, if it could be read).
    pub fn finish(&self, size_now: Option<u64>) {
        let shorter = size_now.is_some_and(|n| n < self.mapped_bytes);
        if self.watch != 0 && (self.was_hit() || shorter) {
            let now = size_now.unwrap_or(0).min(self.mapped_bytes);
            let changed = (self.path.clone(), self.mapped_bytes, now);
            CHANGED.lock().unwrap_or_else(|e| e.into_inner()).push((self.watch, changed));
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

/// Run `f` under a watch of its own: every map made on this thread while it runs (and on the
/// workers it starts [`within`] the watch) that is cut short is noted under it. Answers `f`'s
/// result and the oldest file noted, once every map `f` made is dropped; the watch's other notes
/// are forgotten with it.
pub fn watch<R>(f: impl FnOnce() -> R) -> (R, Option<Changed>) {
    let id = NEXT_WATCH.fetch_add(1, Ordering::Relaxed);
    let r = within(id, f);
    let mut changed = CHANGED.lock().unwrap_or_else(|e| e.into_inner());
    let mut first = None;
    changed.retain(|(w, c)| {
        if *w == id && first.is_none() {
            first = Some(c.clone());
        }
        *w != id
    });
    (r, first)
}

/// The watch this thread's maps are noted under, for a worker to run [`within`].
pub fn current() -> u64 {
    WATCH.get()
}

/// Run `f` with this thread's maps noted under `watch` (a worker of a watched command), then
/// put back the thread's own.
pub fn within<R>(watch: u64, f: impl FnOnce() -> R) -> R {
    struct Restore(u64);
    impl Drop for Restore {
        fn drop(&mut self) {
            WATCH.set(self.0);
        }
    }
    let _restore = Restore(WATCH.replace(watch));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A guarded read-only map as `log::segment::map_file` makes one (the registration
    /// cleared before the map goes, the file's length at the end checked).
    struct Guarded {
        registration: Registration,
        map: memmap2::Mmap,
        file: fs::File,
    }

    impl std::ops::Deref for Guarded {
        type Target = [u8];
        fn deref(&self) -> &[u8] {
            &self.map
        }
    }

    impl Drop for Guarded {
        fn drop(&mut self) {
            self.registration.finish(self.file.metadata().ok().map(|m| m.len()));
        }
    }

    fn map_file(path: &Path) -> std::io::Result<Option<Guarded>> {
        let file = fs::File::open(path)?;
        // SAFETY: a read-only private map of a test's own file; reads past a cut are the
        // guard's to answer, which is what these tests check.
        let map = unsafe { memmap2::Mmap::map(&file) }?;
        Ok(Registration::claim(path, map.as_ptr(), map.len()).map(|registration| Guarded { registration, map, file }))
    }

    /// #46: a file cut short under a live map is read as zeros past its new end and reported as
    /// changed, never a SIGBUS (before the guard this test process died with signal 7).
    #[test]
    fn a_file_cut_short_under_a_map_reads_zeros_and_is_reported_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("00000000000000000000.log");
        let page = PAGE_BYTES.load(Ordering::Relaxed).max(4096);
        fs::write(&path, vec![7u8; page * 4]).unwrap();
        let ((), changed) = watch(|| {
            let bytes = map_file(&path).unwrap().unwrap();
            assert_eq!(bytes[page * 3], 7);
            fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(page as u64).unwrap();
            // Pages past the new end: zeros, not a signal. The first page is still the file's.
            let sum: u64 = bytes[page * 2..].iter().map(|b| u64::from(*b)).sum();
            assert_eq!(sum, 0);
            assert_eq!(bytes[0], 7);
        });
        assert_eq!(changed, Some((path, (page * 4) as u64, page as u64)));
    }

    #[test]
    fn a_file_cut_short_but_never_read_past_its_end_is_reported_too() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        fs::write(&path, vec![1u8; 10_000]).unwrap();
        let ((), changed) = watch(|| {
            let bytes = map_file(&path).unwrap().unwrap();
            fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(100).unwrap();
            assert_eq!(bytes[0], 1);
        });
        assert_eq!(changed, Some((path, 10_000, 100)));
    }

    /// The CI failure of stop 50: a file one test cut was taken as another test's (a lab
    /// session's command) error. A note is its own watch's only; a worker within the watch
    /// notes under it, and a map made outside every watch is noted nowhere.
    #[test]
    fn a_cut_file_is_reported_to_the_watch_that_mapped_it_and_to_no_other() {
        let tmp = tempfile::tempdir().unwrap();
        let cut = |name: &str| {
            let path = tmp.path().join(name);
            fs::write(&path, vec![1u8; 10_000]).unwrap();
            let bytes = map_file(&path).unwrap().unwrap();
            fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(10).unwrap();
            drop(bytes);
            path
        };
        let ((), outside) = watch(|| {
            let ((), inner) = watch(|| {
                cut("inner");
            });
            assert_eq!(inner.map(|c| c.0), Some(tmp.path().join("inner")));
        });
        assert_eq!(outside, None, "the inner watch's note is the inner watch's");
        let ((), worker) = watch(|| {
            let id = current();
            std::thread::scope(|s| {
                s.spawn(|| within(id, || cut("worker")));
            });
        });
        assert_eq!(worker.map(|c| c.0), Some(tmp.path().join("worker")));
        cut("unwatched");
        let unwatched = CHANGED.lock().unwrap().iter().any(|(_, c)| c.0 == tmp.path().join("unwatched"));
        assert!(!unwatched);
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
