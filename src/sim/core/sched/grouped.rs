//! The engine shared by the group-based schedulers (two-level, OWL): warps are partitioned
//! into groups; groups are tried either round-robin starting at the group that issued last
//! (two-level, CTA-Aware) or in a fixed priority order (CTA-Aware-Locality, -BLP), and the
//! warps inside a group round-robin after the last warp that issued.

use super::{SchedStatus, SchedView, bits, rotate};

/// How the groups are ordered each cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum GroupOrder {
    /// Start at the current group and go round the groups (two-level, CTA-Aware).
    RoundRobin,
    /// Always in ascending priority key (lower key = higher priority).
    Priority,
}

#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Grouped {
    /// Groups present among the members, in trial order for `Priority` (else by id):
    /// (group id, its member warps).
    pub groups: Vec<(u32, u64)>,
    /// The `SchedView::generation` the groups were built for (+1; 0 = never).
    generation: u64,
    /// The group that issued last.
    pub current: Option<u32>,
    /// The warp that issued last (the round-robin pointer inside a group).
    last: Option<usize>,
    /// Times the issuing group changed.
    pub switches: u64,
}

impl Grouped {
    /// Rebuilds the groups when the members changed. `group_of` maps a warp to its group;
    /// `key` gives a group's priority key (ignored for round-robin, which sorts by id).
    pub fn refresh(
        &mut self,
        view: &SchedView<'_>,
        group_of: impl Fn(usize) -> u32,
        key: impl Fn(u32) -> (u32, u32),
    ) {
        if self.generation == view.generation + 1 {
            return;
        }
        self.generation = view.generation + 1;
        self.groups.clear();
        for w in bits(view.members) {
            let g = group_of(w);
            match self.groups.iter_mut().find(|(id, _)| *id == g) {
                Some((_, m)) => *m |= 1 << w,
                None => self.groups.push((g, 1 << w)),
            }
        }
        self.groups.sort_by_key(|&(g, _)| key(g));
    }

    /// The candidates the chosen group lets through: only its own while any of its member
    /// warps is not blocked (waiting on a load's data, at a barrier, exited); all of them
    /// once every member is, or when there is none. The chosen group is, round-robin, the
    /// current one; by priority, the first group in priority order with a member not blocked
    /// (a higher group whose data arrives takes the slot back at once).
    pub fn hold_to_chosen(&self, candidates: u64, order: GroupOrder, view: &SchedView<'_>) -> u64 {
        let unblocked = |&&(_, mask): &&(u32, u64)| mask & view.members & !view.blocked != 0;
        let chosen = match order {
            GroupOrder::RoundRobin => {
                self.current.and_then(|cur| self.groups.iter().find(|&&(g, _)| g == cur)).filter(unblocked)
            }
            GroupOrder::Priority => self.groups.iter().find(unblocked),
        };
        chosen.map_or(candidates, |&(_, mask)| candidates & mask)
    }

    /// Offers `candidates` group by group in `order`, round-robin inside each group.
    pub fn pick(
        &mut self,
        candidates: u64,
        order: GroupOrder,
        try_issue: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        let n = self.groups.len();
        let start = match (order, self.current) {
            (GroupOrder::RoundRobin, Some(cur)) => {
                // The current group, or the next one by id if it has left.
                self.groups.iter().position(|&(g, _)| g >= cur).unwrap_or(0)
            }
            _ => 0,
        };
        for k in 0..n {
            let (g, mask) = self.groups[(start + k) % n];
            let m = candidates & mask;
            if m == 0 {
                continue;
            }
            // Before any issue, start at the lowest warp (rotating after slot 63).
            if let Some(w) = rotate(m, self.last.unwrap_or(63)).find(|&w| try_issue(w)) {
                self.last = Some(w);
                if self.current != Some(g) {
                    self.switches += 1;
                    self.current = Some(g);
                }
                return Some(w);
            }
        }
        None
    }
}

impl Grouped {
    /// The status a grouped scheduler reports.
    pub fn status(&self) -> SchedStatus {
        SchedStatus { group: self.current, group_switches: self.switches, ..Default::default() }
    }
}
