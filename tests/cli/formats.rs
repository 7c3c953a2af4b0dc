//! Formats a real broker writes (issue 5) – written separately.
