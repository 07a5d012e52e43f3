//! Why a warp did not issue, and why an issue slot issued nothing (seed 002 §IV-A5;
//! seed 004 §2.3.1, Fig. 5.8; MECHANISMS §5, §9).

/// A warp's state at the issue stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub enum StallReason {
    /// Issued an instruction.
    #[default]
    Issued,
    /// Could issue, but the scheduler picked another warp.
    NotSelected,
    /// data-MEM: its next instruction needs a register an outstanding load will write.
    WaitMem,
    /// data-ALU: its next instruction needs an ALU result still in the pipeline.
    WaitAlu,
    /// str-MEM: ready, but the LD/ST unit's input queue is full or it has too many loads out.
    MemPipe,
    /// str-ALU: ready, but its scheduler's ALU is busy.
    AluBusy,
    /// Waiting at a CTA barrier.
    Barrier,
    /// Exited, waiting for its loads to drain.
    Exiting,
    /// Held by a throttling scheduler (SWL, CCWS, FCW-only): outside the active pool; or by
    /// CTA-Aware: outside the current CTA group while one of its warps is not blocked on data.
    Throttled,
    /// Held by OAWS: its load's predicted misses exceed the MSHRs it could get (Eq. 5.1).
    OcclusionHold,
    /// Held by MASCAR: memory is saturated and another warp owns it.
    MemSaturated,
}

impl StallReason {
    pub fn name(self) -> &'static str {
        match self {
            StallReason::Issued => "issued",
            StallReason::NotSelected => "not-selected",
            StallReason::WaitMem => "data-mem",
            StallReason::WaitAlu => "data-alu",
            StallReason::MemPipe => "str-mem",
            StallReason::AluBusy => "str-alu",
            StallReason::Barrier => "barrier",
            StallReason::Exiting => "exiting",
            StallReason::Throttled => "throttled",
            StallReason::OcclusionHold => "oaws-hold",
            StallReason::MemSaturated => "mascar-hold",
        }
    }

    pub const ALL: [StallReason; 11] = [
        StallReason::Issued,
        StallReason::NotSelected,
        StallReason::WaitMem,
        StallReason::WaitAlu,
        StallReason::MemPipe,
        StallReason::AluBusy,
        StallReason::Barrier,
        StallReason::Exiting,
        StallReason::Throttled,
        StallReason::OcclusionHold,
        StallReason::MemSaturated,
    ];

    /// One bit per reason, for sets of reasons.
    pub const fn bit(self) -> u16 {
        1 << self as u8
    }

    /// The issue-stall class a warp in this state contributes to (seed 002 §IV-A5), if any.
    pub fn class(self) -> Option<StallClass> {
        match self {
            StallReason::Issued | StallReason::NotSelected => None,
            StallReason::WaitMem => Some(StallClass::DataMem),
            StallReason::WaitAlu => Some(StallClass::DataAlu),
            StallReason::MemPipe | StallReason::OcclusionHold | StallReason::MemSaturated => {
                Some(StallClass::StrMem)
            }
            StallReason::AluBusy => Some(StallClass::StrAlu),
            StallReason::Barrier | StallReason::Exiting => Some(StallClass::Fetch),
            StallReason::Throttled => Some(StallClass::Throttled),
        }
    }
}

impl std::str::FromStr for StallReason {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        StallReason::ALL.iter().copied().find(|r| r.name() == s).ok_or_else(|| {
            let names: Vec<&str> = StallReason::ALL.iter().map(|r| r.name()).collect();
            format!("unknown stall reason \"{s}\"; valid: {}", names.join(", "))
        })
    }
}

/// Why a scheduler's issue slot issued nothing (seed 002 §IV-A5, Fig. 7), decided over all
/// of its warps, in this order of precedence:
/// - structural (`StrMem`, `StrAlu`): at least one warp without data dependencies could issue
///   but a unit stops it — the LD/ST unit (queue full, too many loads out, or a policy holding
///   a memory instruction for lack of MSHRs: OAWS, MASCAR) or the ALU;
/// - data (`DataMem`, `DataAlu`): every warp waits on a dependency, on a load if any does,
///   else on an ALU result;
/// - `Throttled`: the only warps that could issue are outside a throttling scheduler's pool;
/// - `Fetch`: no warp has an instruction to issue — all wait at a barrier or drain after
///   EXIT (GPGPU-Sim's "no valid instruction" bucket; instruction fetch itself is not
///   modelled, so I-cache misses never occur).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum StallClass {
    StrMem,
    StrAlu,
    DataMem,
    DataAlu,
    Throttled,
    Fetch,
}

impl StallClass {
    pub const ALL: [StallClass; 6] = [
        StallClass::StrMem,
        StallClass::StrAlu,
        StallClass::DataMem,
        StallClass::DataAlu,
        StallClass::Throttled,
        StallClass::Fetch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StallClass::StrMem => "str_mem",
            StallClass::StrAlu => "str_alu",
            StallClass::DataMem => "data_mem",
            StallClass::DataAlu => "data_alu",
            StallClass::Throttled => "throttled",
            StallClass::Fetch => "fetch",
        }
    }

    /// The reasons that make up each class, in precedence order.
    const MEMBERS: [(StallClass, u16); 6] = [
        (
            StallClass::StrMem,
            StallReason::MemPipe.bit() | StallReason::OcclusionHold.bit() | StallReason::MemSaturated.bit(),
        ),
        (StallClass::StrAlu, StallReason::AluBusy.bit()),
        (StallClass::DataMem, StallReason::WaitMem.bit()),
        (StallClass::DataAlu, StallReason::WaitAlu.bit()),
        (StallClass::Throttled, StallReason::Throttled.bit()),
        (StallClass::Fetch, StallReason::Barrier.bit() | StallReason::Exiting.bit()),
    ];

    /// The reasons of this class (a set of [`StallReason::bit`]s).
    pub fn reasons(self) -> u16 {
        StallClass::MEMBERS[self as usize].1
    }

    /// The class of a slot whose warps were in the states of `reasons` (a set of
    /// [`StallReason::bit`]s), by the precedence above.
    #[inline]
    pub fn of(reasons: u16) -> StallClass {
        StallClass::MEMBERS.iter().find(|(_, m)| reasons & m != 0).map_or(StallClass::Fetch, |&(c, _)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structural_beats_data_beats_fetch() {
        let set = |rs: &[StallReason]| rs.iter().fold(0u16, |m, r| m | r.bit());
        use StallReason::*;
        assert_eq!(StallClass::of(set(&[WaitMem, WaitAlu, MemPipe])), StallClass::StrMem);
        assert_eq!(StallClass::of(set(&[WaitMem, AluBusy])), StallClass::StrAlu);
        assert_eq!(StallClass::of(set(&[WaitMem, WaitAlu, Barrier])), StallClass::DataMem);
        assert_eq!(StallClass::of(set(&[WaitAlu, Exiting])), StallClass::DataAlu);
        assert_eq!(StallClass::of(set(&[OcclusionHold, WaitMem])), StallClass::StrMem);
        assert_eq!(StallClass::of(set(&[Throttled, Barrier])), StallClass::Throttled);
        assert_eq!(StallClass::of(set(&[Barrier, Exiting])), StallClass::Fetch);
        // Every reason but issuing belongs to exactly the class `class()` names.
        for r in StallReason::ALL {
            let owners: Vec<StallClass> =
                StallClass::ALL.into_iter().filter(|c| c.reasons() & r.bit() != 0).collect();
            assert_eq!(owners, r.class().into_iter().collect::<Vec<_>>(), "{r:?}");
        }
    }
}
