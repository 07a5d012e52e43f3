//! Why a warp did not issue (seed 002 §IV-A5 classes; MECHANISMS §5).

/// A warp's state at the issue stage this cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize)]
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
        }
    }

    pub const ALL: [StallReason; 8] = [
        StallReason::Issued,
        StallReason::NotSelected,
        StallReason::WaitMem,
        StallReason::WaitAlu,
        StallReason::MemPipe,
        StallReason::AluBusy,
        StallReason::Barrier,
        StallReason::Exiting,
    ];
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
