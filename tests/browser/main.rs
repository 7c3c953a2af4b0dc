//! The browser tier: what a person sees in a browser. `klog demo --capture` pages and `klog lab`
//! driven in headless Chromium (Debian's `chromium`) through `playwright-core` (the `.mjs`
//! scripts beside this file, installed with `npm ci` here), judged in Rust (`harness.rs` runs a
//! script and parses its answer). Not part of plain `cargo test`: run it with
//! `cargo test --test browser`. A test whose input is missing skips, and fails under
//! `KLOG_CI=1` (`common::missing_input`).

// Shared with the other tiers; each uses a different part of it.
#[allow(dead_code)]
#[path = "../support/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../support/lab_server.rs"]
mod lab_server;

mod capture;
mod harness;
mod lab;
