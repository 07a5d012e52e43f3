//! Why a warp-group left the warp sorter before its last request was tagged (seed 000
//! §IV-B's complete groups; the two ways ours may go early), for events and views.

/// Why a warp-group was scheduled before its tags completed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Early {
    /// It was not: every slice's tag arrived.
    #[default]
    No,
    /// Nothing arrived for `incomplete_timeout` DRAM cycles.
    TimedOut,
    /// No complete group could go and the group's banks had room in their command queues
    /// (`dram.warp_aware.incomplete`).
    Idle,
}

impl Early {
    /// The name breakpoint conditions compare against (`early == timed-out`).
    pub fn name(self) -> &'static str {
        match self {
            Early::No => "no",
            Early::TimedOut => "timed-out",
            Early::Idle => "idle",
        }
    }
}
