//! Warnings the core hands to `main` for stderr without printing them itself (the core never
//! prints): one line each, kept once however often a procedure notes it (the data-dir forms
//! note a log dir's state once per partition). `main` takes them after the command runs.

use std::sync::Mutex;

static NOTES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Note a warning for stderr (a repeat of one already noted is dropped).
pub fn warn(line: String) {
    let mut notes = NOTES.lock().unwrap_or_else(|e| e.into_inner());
    if !notes.contains(&line) {
        notes.push(line);
    }
}

/// Every warning noted so far, oldest first; the list is emptied.
pub fn take() -> Vec<String> {
    std::mem::take(&mut *NOTES.lock().unwrap_or_else(|e| e.into_inner()))
}
