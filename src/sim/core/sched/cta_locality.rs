//! CTA-Aware-Locality (seed 003 §4.2): g_pri[g][core] = g — always issue from the oldest CTA
//! group that has a ready warp, so the same few CTAs keep the L1 to themselves; younger
//! groups only run while every warp of the older ones waits. Priority moves on to the next
//! group when the oldest finishes (see [`super::owl`] for groups formed over launch order).

use super::grouped::GroupOrder;
use super::owl::{g_pri_locality, owl_scheduler};

owl_scheduler!(
    /// The CtaLocality policy (one per warp scheduler).
    CtaLocality,
    g_pri_locality,
    GroupOrder::Priority
);
