//! One cache line's tag state: what the tag array holds and the replacement policies rank.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum LineState {
    #[default]
    Invalid,
    /// Allocated for a miss whose data has not arrived.
    Reserved,
    Valid,
}

/// One cache line's tag state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Line {
    pub key: u64,
    /// Byte address of the line (to write it back).
    pub addr: u64,
    pub state: LineState,
    pub dirty: bool,
    /// Warp slot (L1) or SM (L2) that brought the line in.
    pub owner: u16,
    /// PC of the load that brought it in.
    pub pc: u32,
    /// A sectored cache's readable 32-byte sectors, one bit each (`cache::sectors`; unused
    /// in a cache that is not sectored).
    pub sectors: u8,
    /// A sectored write-back cache's written sectors: its write-back carries only those
    /// (GPGPU-Sim's `sector_cache_block::get_modified_size`).
    pub dirty_sectors: u8,
}
