//! The fault seam under [`crate::durable`]: a test build of the process can be told to die,
//! to fail, or to die as a power loss would leave the disk, at the Nth durable step.
//!
//! Every mutating filesystem call of klog goes through `durable`, and each is one numbered
//! *step* (create, write, fsync, fsync of a directory, rename, truncate, remove, create of a
//! directory, sync of the whole file system), counted from 1 in the order the process performs
//! them. The idea is
//! raft-engine's `FileSystem` trait with failpoints: crash tests enumerate every step of a
//! command instead of racing a timer, so they are deterministic and exhaustive.
//!
//! The seam is configured once per process by [`install`], which `main` calls with the value
//! of the hidden `KLOG_FAULT` variable (the only place that reads the environment). The spec
//! is a comma-separated list of:
//!
//! - `trace=PATH` — append one line per step to PATH: `<step> <op> <path>` (a test learns
//!   from it how many steps a command takes, and which of them are writes);
//! - `kill@N` — just before step N, exit at once with code [`FAULT_EXIT_CODE`] (nothing of
//!   step N is done; no destructor runs, no buffer is flushed);
//! - `torn@N` — if step N is a write, write the first half of its bytes, then exit as `kill`
//!   (a torn write); any other step is killed as by `kill@N`;
//! - `fail@N` — step N is not done and returns an I/O error, which the command reports as
//!   any other error (exit 2);
//! - `powerloss@N` — just before step N, put the disk in the state a power loss at that
//!   moment would leave, then exit as `kill`;
//! - `nosync` — fsync steps are counted, traced and modelled but not issued to the operating
//!   system (a kill does not lose the page cache, and the power-loss model, not the disk,
//!   decides what a power loss keeps: so crash tests need no real fsync and run fast).
//!
//! At most one of `kill`, `torn`, `fail` and `powerloss` may be given.
//!
//! The power-loss model, deliberately simple: every file is treated as durable as it was
//! when this process first touched it (what earlier processes left unsynced is not
//! modelled). A file's contents become durable when it is fsynced (the whole file, as it then
//! is); a name created, renamed or removed becomes durable when its directory is fsynced; a
//! sync of the file system makes every name and content this process touched durable as it is.
//! At the power loss every path this process touched gets back its durable name and contents:
//! a file whose creation was never made durable is removed, a rename whose directory was not
//! fsynced is undone (the target gets its old inode's durable contents back, the source name
//! comes back if it was durable), bytes written or cut since a file's last fsync are undone,
//! and a file created and named durably but never fsynced comes back empty. Directories
//! themselves are never removed. Paths are compared as absolute paths, components normalised,
//! symlinks not resolved.
//!
//! When no spec is installed, each step costs one relaxed atomic load.

use std::collections::{BTreeSet, HashMap};
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The exit code of a process stopped by `kill@N`, `torn@N` or `powerloss@N`.
pub const FAULT_EXIT_CODE: i32 = 86;

/// The kinds of durable step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Create,
    Write,
    Fsync,
    FsyncDir,
    Rename,
    Truncate,
    Remove,
    CreateDir,
    SyncFs,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Create => "create",
            Op::Write => "write",
            Op::Fsync => "fsync",
            Op::FsyncDir => "fsync-dir",
            Op::Rename => "rename",
            Op::Truncate => "truncate",
            Op::Remove => "remove",
            Op::CreateDir => "create-dir",
            Op::SyncFs => "syncfs",
        }
    }
}

/// What a write step must do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Go {
    /// Write all the bytes.
    Whole,
    /// Write the first half of the bytes, then call [`die_torn`].
    Torn,
    /// An fsync step under `nosync`: count it, model it, do not issue it.
    Skip,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    Kill,
    Torn,
    Fail,
    PowerLoss,
}

/// A parsed `KLOG_FAULT` spec.
#[derive(Debug, Default, PartialEq, Eq)]
struct Spec {
    trace: Option<PathBuf>,
    nosync: bool,
    fault: Option<(Fault, u64)>,
}

fn parse_spec(spec: &str) -> Result<Spec, String> {
    let mut out = Spec::default();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if let Some(path) = item.strip_prefix("trace=") {
            if path.is_empty() {
                return Err(format!("{item:?}: trace needs a file path"));
            }
            out.trace = Some(PathBuf::from(path));
            continue;
        }
        if item == "nosync" {
            out.nosync = true;
            continue;
        }
        let Some((kind, n)) = item.split_once('@') else {
            return Err(format!("{item:?}: expected trace=PATH, nosync, kill@N, torn@N, fail@N or powerloss@N"));
        };
        let fault = match kind {
            "kill" => Fault::Kill,
            "torn" => Fault::Torn,
            "fail" => Fault::Fail,
            "powerloss" => Fault::PowerLoss,
            _ => return Err(format!("{item:?}: unknown fault {kind:?} (kill, torn, fail or powerloss)")),
        };
        let step = match n.parse::<u64>() {
            Ok(s) if s >= 1 => s,
            _ => return Err(format!("{item:?}: the step must be a number >= 1")),
        };
        if out.fault.is_some() {
            return Err(format!("{item:?}: only one fault may be given"));
        }
        out.fault = Some((fault, step));
    }
    Ok(out)
}

/// Durable names and contents as the power-loss model sees them (see the module docs).
#[derive(Default)]
struct Model {
    next_inode: u64,
    /// Durable contents of each inode.
    contents: HashMap<u64, Vec<u8>>,
    /// Names as they are now.
    current: HashMap<PathBuf, u64>,
    /// Names as they are durably.
    durable: HashMap<PathBuf, u64>,
    /// Paths whose state at first touch has been recorded.
    seen: BTreeSet<PathBuf>,
}

impl Model {
    fn new_inode(&mut self, contents: Vec<u8>) -> u64 {
        self.next_inode += 1;
        self.contents.insert(self.next_inode, contents);
        self.next_inode
    }

    /// Record what `path` holds before this process first changes it: durable as it is.
    fn touch(&mut self, path: &Path) {
        if !self.seen.insert(path.to_path_buf()) {
            return;
        }
        if path.is_file() {
            if let Ok(bytes) = fs::read(path) {
                let id = self.new_inode(bytes);
                self.current.insert(path.to_path_buf(), id);
                self.durable.insert(path.to_path_buf(), id);
            }
        }
    }

    fn after(&mut self, op: Op, path: &Path, to: Option<&Path>) {
        match op {
            Op::Create => {
                if !self.current.contains_key(path) {
                    // A new inode whose data was never fsynced comes back empty.
                    let id = self.new_inode(Vec::new());
                    self.current.insert(path.to_path_buf(), id);
                }
            }
            Op::Fsync => {
                if let (Some(&id), Ok(bytes)) = (self.current.get(path), fs::read(path)) {
                    self.contents.insert(id, bytes);
                }
            }
            Op::Rename => {
                if let (Some(id), Some(to)) = (self.current.remove(path), to) {
                    self.current.insert(to.to_path_buf(), id);
                }
            }
            Op::Remove => {
                self.current.remove(path);
            }
            Op::FsyncDir => {
                let names: BTreeSet<PathBuf> = self
                    .current
                    .keys()
                    .chain(self.durable.keys())
                    .filter(|p| p.parent() == Some(path))
                    .cloned()
                    .collect();
                for name in names {
                    match self.current.get(&name) {
                        Some(&id) => self.durable.insert(name, id),
                        None => self.durable.remove(&name),
                    };
                }
            }
            Op::SyncFs => {
                // Everything this process touched is durable as it now is: names and contents.
                let ids: Vec<(PathBuf, u64)> = self.current.iter().map(|(p, id)| (p.clone(), *id)).collect();
                for (path, id) in &ids {
                    if let Ok(bytes) = fs::read(path) {
                        self.contents.insert(*id, bytes);
                    }
                }
                self.durable = ids.into_iter().collect();
            }
            Op::Write | Op::Truncate | Op::CreateDir => {}
        }
    }

    /// Put every touched file back to its durable name and contents (directories, touched by
    /// their fsyncs, are left alone). Returns what could not be done.
    fn materialise_power_loss(&self) -> Vec<String> {
        let mut failures = Vec::new();
        let files: BTreeSet<&PathBuf> = self.current.keys().chain(self.durable.keys()).collect();
        for path in files {
            let done = match self.durable.get(path) {
                Some(id) => fs::write(path, self.contents.get(id).map_or(&[][..], Vec::as_slice)),
                None => match fs::remove_file(path) {
                    Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                    other => other,
                },
            };
            if let Err(e) = done {
                failures.push(format!("{}: {e}", path.display()));
            }
        }
        failures
    }
}

struct State {
    spec: Spec,
    step: u64,
    model: Model,
}

static ACTIVE: AtomicBool = AtomicBool::new(false);
static STATE: Mutex<Option<State>> = Mutex::new(None);

/// Install a fault spec (module docs) for the rest of the process. An empty spec installs
/// nothing.
pub fn install(spec: &str) -> Result<(), String> {
    let spec = parse_spec(spec)?;
    if spec == Spec::default() {
        return Ok(());
    }
    let mut state = STATE.lock().unwrap_or_else(|e| e.into_inner());
    *state = Some(State { spec, step: 0, model: Model::default() });
    ACTIVE.store(true, Ordering::Relaxed);
    Ok(())
}

/// Absolute, with `.` components dropped, so that two spellings of one path meet.
fn normalise(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_path_buf(), |d| d.join(path))
    };
    abs.components().collect()
}

/// Called before every durable step on `path` (and `to`, the target of a rename).
#[inline]
pub(crate) fn before(op: Op, path: &Path, to: Option<&Path>) -> io::Result<Go> {
    if !ACTIVE.load(Ordering::Relaxed) {
        return Ok(Go::Whole);
    }
    before_slow(op, path, to)
}

/// Called after every durable step that succeeded.
#[inline]
pub(crate) fn after(op: Op, path: &Path, to: Option<&Path>) {
    if ACTIVE.load(Ordering::Relaxed) {
        let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(state) = guard.as_mut() {
            let to = to.map(normalise);
            state.model.after(op, &normalise(path), to.as_deref());
        }
    }
}

#[cold]
fn before_slow(op: Op, path: &Path, to: Option<&Path>) -> io::Result<Go> {
    let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(state) = guard.as_mut() else { return Ok(Go::Whole) };
    let path = normalise(path);
    let to = to.map(normalise);
    state.model.touch(&path);
    if let Some(to) = &to {
        state.model.touch(to);
    }
    state.step += 1;
    let step = state.step;
    let shown = match &to {
        Some(to) => format!("{} -> {}", path.display(), to.display()),
        None => path.display().to_string(),
    };
    if let Some(trace) = &state.spec.trace {
        let line = format!("{step} {} {shown}\n", op.name());
        let written =
            OpenOptions::new().create(true).append(true).open(trace).and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            eprintln!("klog-fault: {}: trace write failed: {e}", trace.display());
        }
    }
    match state.spec.fault {
        Some((fault, n)) if n == step => {
            let what = format!("step {step} ({} {shown})", op.name());
            match fault {
                Fault::Fail => Err(io::Error::other(format!("injected fault at {what}"))),
                Fault::Torn if op == Op::Write => {
                    eprintln!("klog-fault: torn write at {what}");
                    Ok(Go::Torn)
                }
                Fault::Kill | Fault::Torn => die(&format!("killed before {what}")),
                Fault::PowerLoss => {
                    for failure in state.model.materialise_power_loss() {
                        eprintln!("klog-fault: power loss not materialised: {failure}");
                    }
                    die(&format!("power loss before {what}"))
                }
            }
        }
        _ if state.spec.nosync && matches!(op, Op::Fsync | Op::FsyncDir | Op::SyncFs) => Ok(Go::Skip),
        _ => Ok(Go::Whole),
    }
}

/// End the process as a kill would: no destructor, no flush of klog's own buffers.
fn die(what: &str) -> ! {
    eprintln!("klog-fault: {what}");
    std::process::exit(FAULT_EXIT_CODE)
}

/// End the process after a torn write (the first half of the bytes is written).
pub(crate) fn die_torn() -> ! {
    std::process::exit(FAULT_EXIT_CODE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_parses_each_fault_and_a_trace() {
        let s = parse_spec("trace=/tmp/t, kill@3").unwrap();
        assert_eq!(s, Spec { trace: Some(PathBuf::from("/tmp/t")), nosync: false, fault: Some((Fault::Kill, 3)) });
        assert!(parse_spec("nosync,fail@2").unwrap().nosync);
        assert_eq!(parse_spec("torn@1").unwrap().fault, Some((Fault::Torn, 1)));
        assert_eq!(parse_spec("fail@12").unwrap().fault, Some((Fault::Fail, 12)));
        assert_eq!(parse_spec("powerloss@7").unwrap().fault, Some((Fault::PowerLoss, 7)));
        assert_eq!(parse_spec("").unwrap(), Spec::default());
    }

    #[test]
    fn spec_rejects_unknown_faults_bad_steps_and_two_faults() {
        for bad in ["boom@1", "kill@0", "kill@x", "kill", "trace=", "kill@1,fail@2"] {
            assert!(parse_spec(bad).is_err(), "{bad}");
        }
    }

    fn model_in(dir: &Path) -> (Model, PathBuf, PathBuf) {
        let (a, b) = (dir.join("a"), dir.join("b"));
        (Model::default(), a, b)
    }

    #[test]
    fn power_loss_undoes_unsynced_writes_and_keeps_synced_ones() {
        let dir = tempfile::tempdir().unwrap();
        let (mut m, a, _) = model_in(dir.path());
        fs::write(&a, b"old").unwrap();
        m.touch(&a);
        fs::write(&a, b"old+synced").unwrap();
        m.after(Op::Fsync, &a, None);
        fs::write(&a, b"old+synced+unsynced").unwrap();
        assert_eq!(m.materialise_power_loss(), Vec::<String>::new());
        assert_eq!(fs::read(&a).unwrap(), b"old+synced");
    }

    #[test]
    fn power_loss_removes_a_file_whose_directory_was_not_fsynced() {
        let dir = tempfile::tempdir().unwrap();
        let (mut m, a, b) = model_in(dir.path());
        for p in [&a, &b] {
            m.touch(p);
            fs::write(p, b"x").unwrap();
            m.after(Op::Create, p, None);
            m.after(Op::Fsync, p, None);
        }
        m.after(Op::FsyncDir, dir.path(), None);
        m.touch(&b);
        fs::remove_file(&b).unwrap();
        m.after(Op::Remove, &b, None);
        let c = dir.path().join("c");
        m.touch(&c);
        fs::write(&c, b"never durable").unwrap();
        m.after(Op::Create, &c, None);
        m.after(Op::Fsync, &c, None);
        assert_eq!(m.materialise_power_loss(), Vec::<String>::new());
        assert_eq!(fs::read(&a).unwrap(), b"x");
        // The removal was not made durable: the file is back.
        assert_eq!(fs::read(&b).unwrap(), b"x");
        assert!(!c.exists());
    }

    #[test]
    fn power_loss_undoes_a_rename_until_the_directory_is_fsynced() {
        let dir = tempfile::tempdir().unwrap();
        let (mut m, target, tmp) = model_in(dir.path());
        fs::write(&target, b"old").unwrap();
        m.touch(&tmp);
        fs::write(&tmp, b"new").unwrap();
        m.after(Op::Create, &tmp, None);
        m.after(Op::Fsync, &tmp, None);
        m.touch(&tmp);
        m.touch(&target);
        fs::rename(&tmp, &target).unwrap();
        m.after(Op::Rename, &tmp, Some(&target));
        assert_eq!(m.materialise_power_loss(), Vec::<String>::new());
        assert_eq!(fs::read(&target).unwrap(), b"old");
        assert!(!tmp.exists());

        fs::write(&target, b"new").unwrap();
        m.after(Op::FsyncDir, dir.path(), None);
        assert_eq!(m.materialise_power_loss(), Vec::<String>::new());
        assert_eq!(fs::read(&target).unwrap(), b"new");
    }

    #[test]
    fn power_loss_leaves_a_touched_directory_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (mut m, a, _) = model_in(dir.path());
        m.touch(dir.path());
        m.touch(&a);
        fs::write(&a, b"x").unwrap();
        m.after(Op::Create, &a, None);
        assert_eq!(m.materialise_power_loss(), Vec::<String>::new());
        assert!(dir.path().is_dir());
        assert!(!a.exists());
    }

    #[test]
    fn a_file_system_sync_makes_every_name_and_content_durable() {
        let dir = tempfile::tempdir().unwrap();
        let (mut m, a, b) = model_in(dir.path());
        fs::write(&b, b"old").unwrap();
        for p in [&a, &b] {
            m.touch(p);
        }
        fs::write(&a, b"new file").unwrap();
        m.after(Op::Create, &a, None);
        fs::remove_file(&b).unwrap();
        m.after(Op::Remove, &b, None);
        m.after(Op::SyncFs, dir.path(), None);
        fs::write(&a, b"new file, then unsynced bytes").unwrap();
        assert_eq!(m.materialise_power_loss(), Vec::<String>::new());
        assert_eq!(fs::read(&a).unwrap(), b"new file");
        assert!(!b.exists());
    }

    #[test]
    fn a_durably_named_file_never_fsynced_comes_back_empty() {
        let dir = tempfile::tempdir().unwrap();
        let (mut m, a, _) = model_in(dir.path());
        m.touch(&a);
        fs::write(&a, b"unsynced").unwrap();
        m.after(Op::Create, &a, None);
        m.after(Op::FsyncDir, dir.path(), None);
        assert_eq!(m.materialise_power_loss(), Vec::<String>::new());
        assert_eq!(fs::read(&a).unwrap(), b"");
    }
}
