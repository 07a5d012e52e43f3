//! CTA-Aware (seed 003 §4.1): CTAs form groups (Algorithm 1, [`super::owl`]) of equal priority; the
//! scheduler issues round-robin from one group's warps until none of them can issue, then
//! moves to the next group round-robin (level 2), which becomes the current group.

use super::grouped::GroupOrder;
use super::owl::{g_pri_cta_aware, owl_scheduler};

owl_scheduler!(
    /// The CtaAware policy (one per warp scheduler).
    CtaAware,
    g_pri_cta_aware,
    GroupOrder::RoundRobin
);
