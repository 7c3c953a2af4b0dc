//! Scenario tests (issue 4) – written separately.
