//! Dynamic partitioning of warps into Fully Cached Warps (FCW), trained on divergent loads
//! (seed 004 §4.2.4, Fig. 4.3; reused by OAWS in §5.3, Fig. 5.3).
//!
//! A fully cached divergent load raises CNT; at CNT = C_max, FCW grows (up to W_max) and CNT
//! restarts at C_max/2. A partially cached load lowers CNT by 1 when its warp's GTO priority
//! is at or beyond FCW (a thrashing warp), and by FCW − prio when it is a locality warp
//! (prio < FCW: protected warps losing data shrink FCW faster); at CNT = 0, FCW shrinks (down
//! to the minimum of one warp per scheduler) and CNT restarts at C_max/2. At the bounds CNT
//! saturates instead of wrapping.

/// The CNT/FCW pair.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FcwTrainer {
    /// Accumulated fully-cached evidence, 0..=c_max.
    pub cnt: u32,
    /// Fully cached warps: warps with GTO priority below this are locality warps.
    pub fcw: u32,
    pub c_max: u32,
    pub w_min: u32,
    pub w_max: u32,
}

impl FcwTrainer {
    /// The seed's defaults: 8-bit CNT (C_max = 256) starting at 128, FCW starting at 4 (two
    /// per scheduler with two schedulers), at most `w_max` (48 = warps per SM) and at least
    /// one per scheduler.
    pub fn new(schedulers: u32, w_max: u32) -> FcwTrainer {
        FcwTrainer {
            cnt: 128,
            fcw: 4.clamp(schedulers, w_max.max(schedulers)),
            c_max: 256,
            w_min: schedulers,
            w_max,
        }
    }

    /// A divergent load whose accesses all hit.
    pub fn fully_cached(&mut self) {
        if self.cnt < self.c_max {
            self.cnt += 1;
        }
        if self.cnt == self.c_max && self.fcw < self.w_max {
            self.fcw += 1;
            self.cnt = self.c_max / 2;
        }
    }

    /// A divergent load that missed at least once, from a warp of GTO priority `prio`
    /// (0 = oldest).
    pub fn partially_cached(&mut self, prio: u32) {
        let step = if prio >= self.fcw { 1 } else { self.fcw - prio };
        self.cnt = self.cnt.saturating_sub(step);
        if self.cnt == 0 && self.fcw > self.w_min {
            self.fcw -= 1;
            self.cnt = self.c_max / 2;
        }
    }

    /// Whether a warp of GTO priority `prio` is a locality warp.
    pub fn is_locality_warp(&self, prio: u32) -> bool {
        prio < self.fcw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_walk_of_fig_4_3() {
        let mut t = FcwTrainer::new(2, 48);
        assert_eq!((t.cnt, t.fcw), (128, 4));
        // ❶❷ 128 fully cached loads saturate CNT: FCW 4 → 5, CNT back to 128.
        for _ in 0..127 {
            t.fully_cached();
        }
        assert_eq!((t.cnt, t.fcw), (255, 4));
        t.fully_cached();
        assert_eq!((t.cnt, t.fcw), (128, 5));
        // ❹ a thrashing warp (prio 7 ≥ FCW 5) costs 1; ❺ a locality warp (prio 1) costs 5 − 1 = 4.
        t.partially_cached(7);
        assert_eq!(t.cnt, 127);
        t.partially_cached(1);
        assert_eq!(t.cnt, 123);
        // ❻ oldest warp losing data repeatedly: 123 / 5 → 25 loads to reach zero.
        for _ in 0..24 {
            t.partially_cached(0);
        }
        assert_eq!((t.cnt, t.fcw), (3, 5));
        t.partially_cached(0);
        assert_eq!((t.cnt, t.fcw), (128, 4));
    }

    #[test]
    fn saturates_at_the_bounds() {
        // ❼ at the minimum (one warp per scheduler) CNT stays at 0 instead of wrapping.
        let mut t = FcwTrainer { cnt: 1, fcw: 2, c_max: 256, w_min: 2, w_max: 48 };
        t.partially_cached(9);
        t.partially_cached(9);
        assert_eq!((t.cnt, t.fcw), (0, 2));
        let mut t = FcwTrainer { cnt: 255, fcw: 48, c_max: 256, w_min: 2, w_max: 48 };
        t.fully_cached();
        t.fully_cached();
        assert_eq!((t.cnt, t.fcw), (256, 48));
        assert!(t.is_locality_warp(47) && !t.is_locality_warp(48));
    }
}
