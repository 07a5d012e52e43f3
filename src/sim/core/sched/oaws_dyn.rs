//! Dynamic OAWS (seed 004 §5.4): GTO prioritization over the warps that pass the occlusion
//! qualification of Eq. 5.1, with Eq. 5.4's per-warp prediction — history miss rate of the
//! load's PC plus the warp's SM-wide GTO priority for locality warps (GTO priority < FCW, FCW
//! trained on fully/partially cached divergent loads), 100% for thrashing warps. See
//! [`super::oaws`].

use super::oaws::oaws_scheduler;

oaws_scheduler!(
    /// The dynamic OAWS policy (one per warp scheduler).
    OawsDyn
);
