//! CTA-Aware-Locality-BLP (seed 003 §4.3): g_pri[g][core] = (g − core_id) mod g_core — each
//! core always favours one CTA group, but consecutive cores favour different-numbered groups,
//! so their (row-sharing) consecutive CTAs do not crowd the same DRAM banks at once.

use super::grouped::GroupOrder;
use super::owl::{g_pri_blp, owl_scheduler};

owl_scheduler!(
    /// The CtaLocalityBlp policy (one per warp scheduler).
    CtaLocalityBlp,
    g_pri_blp,
    GroupOrder::Priority
);
