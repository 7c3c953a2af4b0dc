//! `klog tier copy`, `klog tier retain` and `klog tier expire`: a tiered lab's remote tier
//! ([`crate::tiered::copy`], [`crate::tiered::retain`], [`crate::tiered::expire`]). Arguments
//! in, reports out.

pub use crate::tiered::copy::{CopyReport, CopyRequest};
pub use crate::tiered::expire::{ExpireReport, ExpireRequest};
pub use crate::tiered::retain::{LocalRetention, RetainReport, RetainRequest};

/// One run of the leader's copy task.
pub fn copy(req: &CopyRequest<'_>) -> crate::error::Result<CopyReport> {
    crate::tiered::copy::run(req)
}

/// One run of local retention.
pub fn retain(req: &RetainRequest<'_>) -> crate::error::Result<RetainReport> {
    crate::tiered::retain::run(req)
}

/// One run of the leader's remote expiration.
pub fn expire(req: &ExpireRequest<'_>) -> crate::error::Result<ExpireReport> {
    crate::tiered::expire::run(req)
}
