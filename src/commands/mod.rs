//! One module per subcommand: arguments in, plain data out — plus the multi-partition forms
//! that several subcommands share ([`data_dir`]: a whole broker's dir, [`cluster`]: several
//! brokers' dirs). Commands never print; the renderers in [`crate::output`] turn their reports
//! (or event streams) into text or JSON, and [`crate::app`] routes each subcommand to both.

pub mod alter_isr;
pub mod append;
pub mod check;
pub mod cluster;
pub mod create;
pub mod data_dir;
pub mod demo;
pub mod diff;
pub mod draw;
pub mod dump;
pub mod dump_filter;
pub mod elect;
pub mod explore;
pub mod fetch;
pub mod flush;
pub mod history;
pub mod recover;
pub mod remote;
pub mod remote_forecast;
pub mod restore;
pub mod stop;
pub mod tier;
pub mod txn;

// Named here for the dispatchers (`app.rs`, the lab), which reach them through `commands`.
pub use crate::parallel::{NoProgress, ProgressSink};
pub use crate::util::now_ms;
