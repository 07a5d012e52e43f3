//! Policy choices written as plain strings in the config (`scheduler: "frfcfs"`).
//!
//! Every selectable policy is a unit enum declared with [`policy_names!`], which gives it
//! `FromStr`/`Display` and serde support through its kebab-case name, and an error listing
//! every valid name when the config names one that does not exist. What a policy needs of the
//! rest of the machine (a DRAM scheduler that groups warps, say) is stated once, on its row.

use std::fmt;

/// Declares a policy enum whose config spelling is the given string:
/// `Name { Variant => "spelling", … }`. A table may end with `capabilities Caps { cap, … }`
/// and mark rows with the capabilities they have (`Variant => "spelling" [cap, …]`); that
/// generates the struct `Caps` of one flag per capability, `Name::capabilities()` and one
/// `Name::cap()` query per capability, so a policy's capabilities are stated only on its row.
macro_rules! policy_names {
    (
        $(#[$meta:meta])* $name:ident {
            $($(#[$vmeta:meta])* $variant:ident => $text:literal $([$($has:ident),+ $(,)?])?),+ $(,)?
        }
        $(#[$cmeta:meta])* capabilities $caps:ident { $($(#[$capmeta:meta])* $cap:ident),+ $(,)? }
    ) => {
        policy_names! { $(#[$meta])* $name { $($(#[$vmeta])* $variant => $text),+ } }

        $(#[$cmeta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $caps { $($(#[$capmeta])* pub $cap: bool),+ }

        impl $caps {
            /// No capability.
            pub const NONE: $caps = $caps { $($cap: false),+ };
        }

        impl $name {
            /// The capabilities its row states.
            // A row may state every capability, which leaves nothing for `..NONE` to fill.
            #[allow(clippy::needless_update)]
            pub const fn capabilities(self) -> $caps {
                match self {
                    $($name::$variant => $caps { $($($has: true,)+)? ..$caps::NONE },)+
                }
            }

            $(
                $(#[$capmeta])*
                pub const fn $cap(self) -> bool {
                    self.capabilities().$cap
                }
            )+
        }
    };
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The config spelling of each variant.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::config::names::UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err($crate::config::names::UnknownName {
                        found: s.to_string(),
                        valid: Self::NAMES,
                    }),
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

/// The set (or memory sub-partition) counts GPGPU-Sim's IPOLY hash is defined for
/// (`ipoly_hash_function`; the hash itself is `sim::ipoly`).
pub const IPOLY_SIZES: [u32; 3] = [16, 32, 64];

/// A policy name that is not one of the valid spellings.
#[derive(Debug, Clone)]
pub struct UnknownName {
    pub found: String,
    pub valid: &'static [&'static str],
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown name \"{}\"; valid: {}", self.found, self.valid.join(", "))
    }
}

impl std::error::Error for UnknownName {}

policy_names! {
    /// DRAM transaction/command scheduler of a memory controller.
    DramSchedulerName {
        /// First-come first-served: strictly the oldest request of the active queue.
        Fcfs => "fcfs",
        /// First-ready FCFS: oldest row hit first, then the oldest request (seed 001 baseline).
        FrFcfs => "frfcfs",
        /// FR-FCFS with at most `dram.row_hit_cap` hits per activation ahead of older requests
        /// (Mutlu and Moscibroda, MICRO'07; Ramulator's FRFCFS_Cap).
        FrFcfsCap => "frfcfs-cap",
        /// GPGPU-Sim's FR-FCFS: reads and writes in one queue, one request per bank at a
        /// time, banks in round-robin (`dram_sched.cc`; what `config import` gives).
        GpgpusimFrFcfs => "gpgpusim-frfcfs",
        /// The GPU memory controller baseline: row sorter, command queues (seed 000 §II-C).
        Gmc => "gmc",
        /// Warp-group shortest-job-first in one controller (seed 000 §IV-B).
        Wg => "wg" [groups_warps],
        /// WG coordinated across controllers (seed 000 §IV-C).
        WgM => "wg-m" [groups_warps, coordinates],
        /// WG-M with MERB row-miss postponement (seed 000 §IV-D).
        WgBw => "wg-bw" [groups_warps, coordinates],
        /// WG-Bw with warp-aware write draining (seed 000 §IV-E).
        WgW => "wg-w" [groups_warps, coordinates],
        /// α-SJF: tolerance-aware core, then shortest warp queue vs row hits (seed 001).
        AlphaSjf => "asjf" [hears_core_warps],
        /// α-SJF with writes scheduled with reads, in their warp's queue (seed 001).
        AlphaSjfW => "asjfw" [hears_core_warps],
        /// Warp-groups whole, in completion order (seed 000 §VI-C2).
        Wafcfs => "wafcfs" [groups_warps],
    }
    /// What a DRAM scheduler needs of the rest of the machine, stated on its row above.
    capabilities DramSchedulerCapabilities {
        /// Schedules warp-groups: needs the SMs' last-request tags.
        groups_warps,
        /// Coordinates the controllers over WG-M's network.
        coordinates,
        /// Hears how many warps each SM has assigned (α-SJF's tolerance; seed 001 §V-A).
        hears_core_warps,
    }
}

policy_names! {
    /// When a warp-aware controller may place a warp-group before its last request's tag has
    /// arrived. Seed 000 §IV-B places only groups "fully transferred from the SMs to the GMCs"
    /// and says nothing of the case where none of those can go; its premise is that "a warp's
    /// requests arrive at the memory controller within short intervals of each other" (§III-A).
    IncompleteGroups {
        /// When no complete group can be placed, an incomplete one whose banks all have room
        /// in their command queues may go (complete groups first): no bank waits idle for a
        /// tag while it holds requests — §IV-A's third aim, "Maintain high bandwidth
        /// utilization and low overall memory latency by exploiting row hits and bank-level
        /// parallelism".
        IdleBanks => "idle-banks",
        /// Only when no complete group can be placed and every command queue of the channel is
        /// empty: a bank idles while any other bank still works.
        IdleChannel => "idle-channel",
    }
}

policy_names! {
    /// Which of a controller's warp-groups a WG-M coordination message lowers (seed 000 §IV-C:
    /// "matches the received warp-group-ids against the warp-groups in its tracking
    /// structures"). The paper's message is ⟨SM, warp, score⟩ because its warp "is blocked till
    /// all the requests are serviced by the memory" (§II-A): a warp has one load at the
    /// controllers, so ⟨SM, warp⟩ names one warp-group. Here a warp keeps up to
    /// `core.max_loads_per_warp` loads in flight and a warp-group is one warp-load.
    CoordinationKey {
        /// The message also carries the load's slot in its warp's outstanding-load table
        /// (⌈log2 core.max_loads_per_warp⌉ bits, taken from the score field), and lowers only
        /// the group of that load: the warp-group the sending controller selected.
        WarpLoad => "warp-load",
        /// ⟨SM, warp⟩ only, the paper's message as it reads: a message lowers
        /// every local group of the warp, the groups of its other loads in flight too.
        Warp => "warp",
    }
}

policy_names! {
    /// Warp scheduler inside an SM.
    WarpSchedulerName {
        /// Loose round-robin among ready warps.
        Lrr => "lrr",
        /// Greedy-then-oldest (seeds 002, 004 baseline).
        Gto => "gto",
        /// Two-level round-robin over fixed fetch groups of warps (Narasiman et al.; seed 003 §6).
        TwoLevel => "two-level",
        /// OWL CTA-Aware: CTA groups of Algorithm 1, round-robin between groups (seed 003 §4.1).
        CtaAware => "cta-aware",
        /// OWL CTA-Aware-Locality: always the lowest-numbered ready group (seed 003 §4.2).
        CtaLocality => "cta-locality",
        /// OWL CTA-Aware-Locality-BLP: g_pri = (g − core) mod g_core (seed 003 §4.3).
        CtaLocalityBlp => "cta-locality-blp",
        /// Static warp limiting: GTO over the oldest `warp_limit` warps (seed 004 §5.5.1).
        Swl => "swl",
        /// Cache-conscious wavefront scheduling: victim tags and lost-locality scores throttle
        /// loads (seed 004 §5.5.1).
        Ccws => "ccws",
        /// MASCAR: memory first; one owner warp when memory saturates; re-execution queue
        /// (seed 004 §5.5.1).
        Mascar => "mascar",
        /// Occlusion-aware GTO with a static miss rate (seed 004 §5.3).
        OawsStatic => "oaws-static",
        /// GTO throttled to the fully cached (locality) warps (seed 004 §5.4.2).
        FcwOnly => "fcw-only",
        /// Occlusion-aware GTO with history miss rates and FCW (seed 004 §5.4).
        OawsDyn => "oaws-dyn",
    }
}

policy_names! {
    /// The memory system below the L1 (seed 002 §III; MECHANISMS §5).
    IdealMemory {
        /// The modelled crossbar, L2 slices and DRAM.
        Real => "real",
        /// P∞: every L1 miss returns after a fixed latency — `l2_latency` when it hits in the
        /// L2 tags, plus `dram_latency` when it misses — with no congestion anywhere.
        InfiniteBandwidth => "infinite-bandwidth",
        /// P_DRAM: the real crossbar and L2; every L2 miss returns after `dram_latency` with
        /// no DRAM timing or queueing.
        InfiniteDram => "infinite-dram",
        /// Every L1 miss returns after exactly `miss_latency` core cycles (seed 002 Fig. 3).
        FixedLatency => "fixed-latency",
    }
}

policy_names! {
    /// Cache set-index function (seed 004 ch. 3).
    IndexName {
        /// Conventional modulo indexing: (addr / line) mod sets.
        Conv => "conv",
        /// Bitwise XOR of the index bits with the next log2(sets) bits.
        Bxor => "bxor",
        /// Prime modulo: a prime number of sets, line mod sets.
        Pmod => "pmod",
        /// Prime displacement: (p·tag + index) mod the largest prime below the set count.
        Pdisp => "pdisp",
        /// The Fermi L1D hash (GPGPU-Sim's hashed set function; 32 or 64 sets).
        Fermi => "fermi",
        /// Full-permutation indexing (seed 004 §3.2.3).
        Fup => "fup",
        /// IPOLY: the line modulo an irreducible polynomial over GF(2) (GPGPU-Sim's `P`;
        /// 16, 32 or 64 sets).
        Ipoly => "ipoly",
    }
}

policy_names! {
    /// Cache replacement policy (seed 004 ch. 4).
    ReplacementName {
        /// Least recently used.
        Lru => "lru",
        /// Dynamic insertion: set dueling between MRU and bimodal LRU insertion.
        Dip => "dip",
        /// Re-reference interval prediction: 3-bit RRPV, set dueling of the insertion value.
        Rrip => "rrip",
        /// Divergence-aware cache management (seed 004 ch. 4; L1D only).
        Dacache => "dacache",
    }
}

policy_names! {
    /// DaCache's constrained replacement (seed 004 §4.2.3): what a miss does when no line of
    /// the thrashing region can be replaced.
    Constrained {
        /// Send the access below as 32 B sectors whose data goes straight to the registers.
        Bypass => "bypass",
        /// Replay the access until a thrashing-region line becomes replaceable.
        Stall => "stall",
        /// No constraint: any replaceable line may be the victim (DaCache-Uncon).
        Off => "off",
    }
}

policy_names! {
    /// Which warps CCWS lets issue loads once its lost-locality scores stack above the cutoff.
    CcwsAccess {
        /// Those whose running sum, highest score first, stays within the cutoff (and the
        /// highest alone when it exceeds it), as Rogers et al. build CCWS.
        Cutoff => "cutoff",
        /// The warp with the highest score alone: seed 004 §5.5.2's account of the CCWS it
        /// compares with, which "provide[s] exclusive accesses to one warp when ... L1D
        /// locality loss is high", and §5.5.1's "The warp that has the largest locality loss is
        /// exclusively prioritized".
        Exclusive => "exclusive",
    }
}

policy_names! {
    /// Which warp CCWS lets issue first among those its lost-locality stack allows.
    CcwsPriority {
        /// Greedy-then-oldest, as Rogers et al. build CCWS on GTO.
        Gto => "gto",
        /// The warp with the highest lost-locality score above the base first (the oldest of
        /// equals), then GTO: seed 004 §5.5.1 ("The warp that has the largest locality loss is
        /// exclusively prioritized") as §5.5.3 describes its effect, "CCWS prioritizes warps
        /// with the highest locality lost, which means that the prioritized warp often has
        /// little data reserved in L1D to start with and needs to immediately fetch data from
        /// L2. Switching prioritized warps incurs frequent MSHR consumptions".
        LostLocality => "lost-locality",
    }
}

policy_names! {
    /// Which of an SM's warp schedulers offers an instruction first each cycle; it matters at
    /// the LD/ST queue they share, which takes one instruction when one slot is free.
    IssueOrder {
        /// The first scheduler rotates every cycle (cycle mod schedulers), as GPGPU-Sim's
        /// `shader_core_ctx::issue` rotates `Issue_Prio`. Where the LD/ST queue frees a slot on
        /// a period that is a multiple of the number of schedulers (a core clocked at twice
        /// the interconnect's, whose L1 miss queue drains every other core cycle), the same
        /// scheduler is first whenever a slot is free.
        Rotate => "rotate",
        /// The schedulers take turns at the LD/ST queue: the one after the scheduler that last
        /// put an instruction into it offers first, whatever the cycle.
        LdstRoundRobin => "ldst-round-robin",
    }
}

policy_names! {
    /// When a missing line gets its place in the cache.
    AllocPolicy {
        /// Reserve the victim at miss time (GPGPU-Sim default; seed 002 "line alloc" stalls).
        OnMiss => "on-miss",
        /// Choose the victim when the data arrives (seed 004 §5.5.2).
        OnFill => "on-fill",
    }
}

policy_names! {
    /// What an L1 store does with the line (GPGPU-Sim's write policy and write allocation).
    L1Write {
        /// Write-evict, no write-allocate (GPGPU-Sim `E:N`; Fermi): a hit drops the line.
        Evict => "evict",
        /// Write-through with lazy fetch on read (GPGPU-Sim `T:L`, Volta;
        /// `data_cache::wr_miss_wa_lazy_fetch_on_read`): every store marks its line written;
        /// a store miss in a sectored L1 allocates the line (waiting when the set has no
        /// replaceable way), a sector it wrote whole is readable, and a load of any other
        /// sector fetches it. A non-sectored L1 allocates only a store that writes the whole
        /// line. Written lines are kept from replacement by `l1.write_ratio`.
        Through => "through",
    }
}

policy_names! {
    /// How lines are spread over memory partitions and L2 slices.
    PartitionIndexing {
        /// As the mapping scheme says.
        Consecutive => "consecutive",
        /// GPGPU-Sim's IPOLY partition hash (`-gpgpu_memory_partition_indexing 2`).
        Ipoly => "ipoly",
        /// GPGPU-Sim's random interleaving (`-gpgpu_memory_partition_indexing 4`): every chunk of
        /// `2^(channel_bit - log2 l2.slices_per_channel)` bytes in a sub-partition of its own
        /// drawn uniformly.
        Random => "random",
    }
}

policy_names! {
    /// Physical address to DRAM location mapping (seed 000 §II-C).
    MappingScheme {
        /// Column bits lowest, then channel (interleave-sized chunks, modulo), bank, row.
        Linear => "linear",
        /// Seed 000: channel = {addr[47:11] : addr[10:8] ^ addr[13:11]} mod channels, bank bits
        /// XOR-ed with the low row bits (permutation-based interleaving).
        Xor => "xor",
        /// Bit fields given by `dram.mapping.custom` (MSB first).
        Custom => "custom",
    }
}

impl IndexName {
    /// What this index function needs of the set count, when `sets` does not satisfy it.
    pub fn set_count_requirement(self, sets: u32) -> Option<&'static str> {
        let (ok, need) = match self {
            IndexName::Conv | IndexName::Bxor => (sets.is_power_of_two(), "a power of two (e.g. 32, 64)"),
            IndexName::Pmod => (sets >= 2, "at least 2 (a prime, or the largest prime below it is used)"),
            IndexName::Pdisp | IndexName::Fup => {
                (sets.is_power_of_two() && sets >= 4, "a power of two ≥ 4 (e.g. 32, 64)")
            }
            IndexName::Fermi => {
                (sets == 32 || sets == 64, "32 or 64 (the Fermi hash is defined for 16 KB and 48 KB L1Ds)")
            }
            IndexName::Ipoly => (IPOLY_SIZES.contains(&sets), "16, 32 or 64 (GPGPU-Sim's IPOLY polynomials)"),
        };
        (!ok).then_some(need)
    }
}

#[cfg(test)]
mod tests {
    use super::DramSchedulerName as D;

    /// The schedulers with a capability, by name.
    fn with(cap: fn(D) -> bool) -> Vec<&'static str> {
        D::ALL.iter().filter(|&&n| cap(n)).map(|n| n.name()).collect()
    }

    #[test]
    fn each_scheduler_has_the_capabilities_its_row_states() {
        assert_eq!(with(D::groups_warps), ["wg", "wg-m", "wg-bw", "wg-w", "wafcfs"]);
        assert_eq!(with(D::coordinates), ["wg-m", "wg-bw", "wg-w"]);
        assert_eq!(with(D::hears_core_warps), ["asjf", "asjfw"]);
        assert_eq!(D::Fcfs.capabilities(), super::DramSchedulerCapabilities::NONE);
        let wg_m = D::WgM.capabilities();
        assert!(wg_m.groups_warps && wg_m.coordinates && !wg_m.hears_core_warps);
    }
}
