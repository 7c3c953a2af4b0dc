//! Kill tests (issue 3) – written separately.
