//! Set dueling (Qureshi et al., ISCA 2007; used by DIP and RRIP in seed 004 §4.3): a few
//! leader sets always use policy A, as many always use policy B, and a saturating counter
//! (PSEL) counts their misses — a miss in an A leader counts up, in a B leader down. The other
//! (follower) sets use B while PSEL is above its midpoint. The seed dedicates 4 sets to each
//! policy; PSEL has 10 bits.

/// Leader sets per policy (seed 004 §4.3).
pub const LEADERS: usize = 4;
/// PSEL width.
const PSEL_BITS: u32 = 10;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SetDueling {
    /// Distance between leaders of one policy (0: no leaders, the cache is too small).
    stride: usize,
    leaders: usize,
    /// Policy selector, 0..2^PSEL_BITS.
    pub psel: u16,
}

/// The role of a set in the duel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Role {
    LeaderA,
    LeaderB,
    Follower,
}

impl SetDueling {
    /// Leaders of A are sets 0, s, 2s, …; leaders of B the sets just before the next A leader
    /// (s − 1, 2s − 1, …), with s = sets / leaders. Small caches get fewer leaders (at most
    /// half the sets per policy).
    pub fn new(sets: usize) -> SetDueling {
        let leaders = LEADERS.min(sets / 2);
        SetDueling { stride: sets.checked_div(leaders).unwrap_or(0), leaders, psel: 1 << (PSEL_BITS - 1) }
    }

    #[inline]
    pub fn role(&self, set: usize) -> Role {
        if self.stride == 0 || set / self.stride >= self.leaders {
            Role::Follower
        } else if set.is_multiple_of(self.stride) {
            Role::LeaderA
        } else if set % self.stride == self.stride - 1 {
            Role::LeaderB
        } else {
            Role::Follower
        }
    }

    /// Whether `set` uses policy B now.
    #[inline]
    pub fn uses_b(&self, set: usize) -> bool {
        match self.role(set) {
            Role::LeaderA => false,
            Role::LeaderB => true,
            Role::Follower => self.psel > 1 << (PSEL_BITS - 1),
        }
    }

    /// A miss in `set`.
    #[inline]
    pub fn miss(&mut self, set: usize) {
        match self.role(set) {
            Role::LeaderA => self.psel = (self.psel + 1).min((1 << PSEL_BITS) - 1),
            Role::LeaderB => self.psel = self.psel.saturating_sub(1),
            Role::Follower => {}
        }
    }
}

/// Bimodal throttle: one insertion in 32 goes the "protected" way (ε = 1/32, as in BIP and
/// BRRIP). A counter, not a random draw, so runs stay deterministic.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Bimodal {
    count: u8,
}

impl Bimodal {
    const PERIOD: u8 = 32;

    /// Whether the next insertion is the rare one (without advancing).
    pub fn next_is_rare(&self) -> bool {
        self.count + 1 == Self::PERIOD
    }

    /// Advances; returns whether this insertion is the rare one.
    pub fn tick(&mut self) -> bool {
        let rare = self.next_is_rare();
        self.count = (self.count + 1) % Self::PERIOD;
        rare
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_leaders_per_policy_and_psel_steers_followers() {
        let mut d = SetDueling::new(32);
        let a: Vec<usize> = (0..32).filter(|&s| d.role(s) == Role::LeaderA).collect();
        let b: Vec<usize> = (0..32).filter(|&s| d.role(s) == Role::LeaderB).collect();
        assert_eq!((a, b), (vec![0, 8, 16, 24], vec![7, 15, 23, 31]));
        assert!(!d.uses_b(3), "followers start with A");
        d.miss(0);
        assert!(d.uses_b(3), "one more miss in A's leaders than in B's: followers switch to B");
        d.miss(7);
        d.miss(3);
        assert!(!d.uses_b(3), "follower misses do not count");
        assert!(d.uses_b(7) && !d.uses_b(8));
        for _ in 0..2000 {
            d.miss(0);
        }
        assert_eq!(d.psel, 1023, "saturates");
        assert_eq!(SetDueling::new(1).role(0), Role::Follower, "too small to duel");
    }

    #[test]
    fn bimodal_is_one_in_32() {
        let mut b = Bimodal::default();
        let rare: Vec<usize> = (0..96).filter(|_| b.tick()).collect();
        assert_eq!(rare.len(), 3);
    }
}
