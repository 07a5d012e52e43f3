//! Static OAWS (seed 004 §5.3): GTO prioritization over the warps that pass the occlusion
//! qualification of Eq. 5.1, with Miss_pred = ⌈active lanes × SMR⌉ for loads the divergent
//! load classifier knows (SMR: `core.oaws.smr_percent`, 50% by default). See [`super::oaws`].

use super::oaws::oaws_scheduler;

oaws_scheduler!(
    /// The static OAWS policy (one per warp scheduler).
    OawsStatic
);
