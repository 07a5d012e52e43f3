//! RRIP, re-reference interval prediction (Jaleel et al.; seed 004 §4.3 comparator) with
//! M = 3-bit re-reference prediction values (RRPV, 0 = re-referenced soonest). New lines get
//! 2^M − 2 (SRRIP, policy A) or 2^M − 1 (BRRIP, policy B: 2^M − 2 once in 32), chosen by set
//! dueling. A hit lowers the RRPV by one (frequency-priority promotion). The victim is a
//! replaceable line with RRPV 2^M − 1; while there is none, every RRPV of the set ages by one
//! — so the victim is the first replaceable line of the highest RRPV, and replacing it ages the
//! set by 2^M − 1 minus its RRPV.

use super::Replacement;
use super::duel::{Bimodal, SetDueling};
use crate::sim::cache::AccessCtx;
use crate::sim::cache::line::Line;

/// RRPV bits.
const M: u32 = 3;
/// Distant re-reference: the eviction value.
const DISTANT: u8 = (1 << M) - 1;
/// Long re-reference: SRRIP's insertion value.
const LONG: u8 = DISTANT - 1;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rrip {
    ways: usize,
    /// Per line (set × ways + way).
    pub rrpv: Vec<u8>,
    pub duel: SetDueling,
    bimodal: Bimodal,
}

impl Rrip {
    pub fn new(sets: usize, ways: usize) -> Rrip {
        Rrip {
            ways,
            rrpv: vec![DISTANT; sets * ways],
            duel: SetDueling::new(sets),
            bimodal: Bimodal::default(),
        }
    }

    fn rrpvs(&mut self, set: usize) -> &mut [u8] {
        &mut self.rrpv[set * self.ways..(set + 1) * self.ways]
    }

    fn insertion_value(&self, set: usize, rare: bool) -> u8 {
        if self.duel.uses_b(set) && !rare { DISTANT } else { LONG }
    }
}

impl Replacement for Rrip {
    fn touch(&mut self, set: usize, way: usize) {
        let v = &mut self.rrpvs(set)[way];
        *v = v.saturating_sub(1);
    }

    fn insert(&mut self, set: usize, way: usize, _key: u64, _ctx: &AccessCtx, evicted: Option<&Line>) {
        if evicted.is_some() {
            let rrpv = self.rrpvs(set);
            let age = DISTANT - rrpv[way];
            for v in rrpv.iter_mut() {
                *v = (*v + age).min(DISTANT);
            }
        }
        let rare = self.duel.uses_b(set) && self.bimodal.tick();
        let v = self.insertion_value(set, rare);
        self.duel.miss(set);
        self.rrpvs(set)[way] = v;
    }

    fn victim(&self, set: usize, replaceable: &dyn Fn(usize) -> bool) -> Option<usize> {
        let rrpv = &self.rrpv[set * self.ways..(set + 1) * self.ways];
        let oldest = (0..self.ways).filter(|&w| replaceable(w)).map(|w| rrpv[w]).max()?;
        (0..self.ways).find(|&w| replaceable(w) && rrpv[w] == oldest)
    }

    /// Ways by RRPV, lowest (re-referenced soonest) first; ties by way number.
    fn order(&self, set: usize) -> Vec<usize> {
        let rrpv = &self.rrpv[set * self.ways..(set + 1) * self.ways];
        let mut ways: Vec<usize> = (0..self.ways).collect();
        ways.sort_by_key(|&w| rrpv[w]);
        ways
    }

    /// The ways before `way` in [`Replacement::order`]: lower RRPV, or equal on a lower way.
    fn position(&self, set: usize, way: usize) -> usize {
        let rrpv = &self.rrpv[set * self.ways..(set + 1) * self.ways];
        (0..self.ways).filter(|&w| (rrpv[w], w) < (rrpv[way], way)).count()
    }

    /// Lines predicted to be re-referenced sooner than the newcomer come before it.
    fn insertion_position(&self, set: usize, _ctx: &AccessCtx) -> usize {
        let v = self.insertion_value(set, self.bimodal.next_is_rare());
        self.rrpv[set * self.ways..(set + 1) * self.ways].iter().filter(|&&r| r < v).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srrip_leader_inserts_long_hits_step_down_victims_age_the_set() {
        let mut r = Rrip::new(32, 4);
        let ctx = AccessCtx::default();
        for w in 0..4 {
            r.insert(0, w, 0, &ctx, None);
        }
        assert_eq!(&r.rrpv[..4], &[6, 6, 6, 6], "set 0 leads for SRRIP: 2^M − 2");
        r.touch(0, 1);
        r.touch(0, 1);
        r.touch(0, 2);
        assert_eq!(&r.rrpv[..4], &[6, 4, 5, 6]);
        assert_eq!(r.order(0), vec![1, 2, 0, 3]);
        let positions: Vec<usize> = (0..4).map(|w| r.position(0, w)).collect();
        assert_eq!(positions, vec![2, 0, 1, 3], "each way's place in the order, ties by way");
        // No line at 7: the set ages by one, then the first replaceable line at 7 goes.
        let valid = Line::default();
        assert_eq!(r.victim(0, &|w| w != 0), Some(3));
        r.insert(0, 3, 0, &ctx, Some(&valid));
        assert_eq!(&r.rrpv[..4], &[7, 5, 6, 6], "aged by one, way 3 inserted at 6");
        // Ways 0 and 3 reserved: ways 1 and 2 must age to 7 first.
        assert_eq!(r.victim(0, &|w| w == 1 || w == 2), Some(2));
        r.insert(0, 2, 0, &ctx, Some(&valid));
        assert_eq!(&r.rrpv[..4], &[7, 6, 6, 7]);
        assert_eq!(r.victim(0, &|_| false), None);
        // Filling an invalid way does not age the set.
        r.insert(0, 0, 0, &ctx, None);
        assert_eq!(&r.rrpv[..4], &[6, 6, 6, 7]);
    }

    #[test]
    fn brrip_leader_inserts_distant_and_duel_moves_followers() {
        let mut r = Rrip::new(32, 4);
        let ctx = AccessCtx::default();
        r.insert(7, 0, 0, &ctx, None);
        assert_eq!(r.rrpv[7 * 4], 7, "set 7 leads for BRRIP: 2^M − 1");
        assert_eq!(r.insertion_position(3, &ctx), 0, "followers start with SRRIP (6: before no line)");
        r.insert(0, 0, 0, &ctx, None);
        r.insert(0, 1, 0, &ctx, None);
        r.insert(3, 0, 0, &ctx, None);
        assert_eq!(r.rrpv[3 * 4], 7, "two SRRIP-leader misses against one: followers use BRRIP");
    }
}
