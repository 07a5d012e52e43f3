//! Physical address → memory partition, L2 slice, DRAM bank, row and column
//! (MECHANISMS §1; seed 000 §II-C).
//!
//! Every scheme is a bijection from line addresses to (channel, slice, bank, row, column), so
//! distinct lines never alias in the L2 or in DRAM.
//!
//! * `linear`: the address is cut into `interleave_bytes` chunks dealt round-robin to the
//!   channels (modulo, so any channel count works); inside a channel, consecutive chunks fill a
//!   row, then the next bank, then the next row.
//! * `xor` (seed 000): as linear, but the channel is
//!   `{addr[47:11] : (addr[10:8] XOR addr[13:11])} mod n_channels` (for 256-byte interleave;
//!   the bit positions scale with `interleave_bytes`) to avoid channel camping, and the bank
//!   index is XOR-ed with the low bits of the row (permutation-based interleaving, Zhang et al.)
//!   so that strides do not camp on one bank.
//! * `custom`: one letter per address bit (see `config::CustomFields`); with `channel_bit`, the
//!   channel is taken out by modulo first, as GPGPU-Sim's `dramid@N` decoding does.
//!
//! With `partition_indexing = "ipoly"` (GPGPU-Sim's `-gpgpu_memory_partition_indexing 2`,
//! `linear_to_raw_address_translation::addrdec_tlx`), a custom mapping with `channel_bit`
//! picks the L2 slice as GPGPU-Sim picks the memory sub-partition: channel × slices_per_channel
//! plus the lowest bank bits, IPOLY-hashed ([`crate::sim::ipoly`]) with the address bits above
//! `channel_bit + log2 channels + log2 slices_per_channel`; the channel is the hashed slice over
//! slices_per_channel, while bank, row and column stay as decoded. A slice numbers its lines by
//! the address with the channel and slice bits taken out (GPGPU-Sim's `partition_address`,
//! which its L2 set index reads).
//!
//! With `partition_indexing = "random"` (`-gpgpu_memory_partition_indexing 4`, the `RANDOM`
//! case of `addrdec_tlx`), every chunk of `2^(channel_bit - log2 slices_per_channel)` bytes
//! (GPGPU-Sim's `addr >> (ADDR_CHIP_S - log2sub_partition)`: 128 bytes for `dramid@8` and two
//! sub-partitions) goes to a sub-partition drawn uniformly, its channel being that over
//! slices_per_channel, while bank, row and column stay as decoded. GPGPU-Sim draws it with
//! `rand()` when the chunk is first decoded and keeps it in a table; here it is a hash of the
//! chunk number ([`crate::workload::hash::mix`]): the same uniform, independent choice per chunk
//! without a table, though not the same chunks land together. This mapping is no bijection:
//! two lines can share a channel, bank, row and column (as in GPGPU-Sim, where DRAM holds no
//! data) and `unmap` cannot invert it. A line's slice key stays unique: the partition line
//! (as under IPOLY) times the number of sub-partitions plus the sub-partition the line decodes
//! to, and the slice's set index divides that back out ([`AddressMap::set_group`]), since
//! GPGPU-Sim indexes its L2 set by the partition address and tags the whole address.

use crate::config::{Config, CustomFields, MappingScheme, PartitionIndexing};
use crate::sim::ipoly;
use crate::workload::hash::mix;

/// Where a line lives in the memory system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct DramLocation {
    pub channel: u32,
    /// L2 slice within the channel's partition.
    pub slice: u32,
    pub bank: u32,
    pub row: u32,
    /// Column of the first burst of the line.
    pub col: u32,
    /// Line number inside its L2 slice (unique per slice; the slice's set index uses it).
    pub slice_line: u64,
}

/// The configured mapping, with sizes pre-computed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AddressMap {
    scheme: MappingScheme,
    channels: u64,
    slices: u64,
    banks: u64,
    rows: u64,
    row_bytes: u64,
    burst_bytes: u64,
    line_bytes: u64,
    interleave_shift: u32,
    // log2 of the power-of-two sizes (divisions on the hot path become shifts).
    row_shift: u32,
    bank_shift: u32,
    line_shift: u32,
    burst_shift: u32,
    custom: Option<CustomFields>,
    /// `dram.mapping.channel_bit` of a custom mapping.
    channel_bit: Option<u32>,
    indexing: PartitionIndexing,
    /// IPOLY or random partition indexing: the address bits of the slice number's bank bits.
    hashed_slice_bits: Option<u64>,
}

impl AddressMap {
    pub fn new(c: &Config) -> AddressMap {
        let custom = match c.dram.mapping.scheme {
            MappingScheme::Custom => Some(
                CustomFields::parse(&c.dram.mapping.custom, c)
                    .expect("custom mapping is validated with the config"),
            ),
            _ => None,
        };
        AddressMap {
            scheme: c.dram.mapping.scheme,
            channels: c.dram.channels.into(),
            slices: c.l2.slices_per_channel.into(),
            banks: c.dram.banks.into(),
            rows: c.dram.rows.into(),
            row_bytes: c.dram.row_bytes.into(),
            burst_bytes: c.dram_burst_bytes().into(),
            line_bytes: c.l2.line_bytes.into(),
            interleave_shift: c.dram.mapping.interleave_bytes.trailing_zeros(),
            row_shift: c.dram.row_bytes.trailing_zeros(),
            bank_shift: c.dram.banks.trailing_zeros(),
            line_shift: c.l2.line_bytes.trailing_zeros(),
            burst_shift: c.dram_burst_bytes().trailing_zeros(),
            indexing: c.dram.mapping.partition_indexing,
            hashed_slice_bits: match (&custom, c.dram.mapping.partition_indexing) {
                (Some(f), PartitionIndexing::Ipoly | PartitionIndexing::Random) => {
                    Some(f.lowest_bits(b'B', c.l2.slices_per_channel.trailing_zeros()))
                }
                _ => None,
            },
            custom,
            channel_bit: c.dram.mapping.channel_bit,
        }
    }

    /// The IPOLY term of an address: what the hash XORs into a slice number, from the bits of
    /// the channel-free address `packed` above `channel_bit + log2 slices` (the original
    /// address's bits above `channel_bit + log2 channels + log2 slices`).
    fn ipoly_term(&self, packed: u64, s: u32) -> u64 {
        let higher = packed >> s >> self.slices.trailing_zeros();
        ipoly::hash(higher, 0, self.channels * self.slices)
    }

    /// How many slice keys share a set-index input: the sub-partitions under random partition
    /// indexing (a key is the partition line times them plus the decoded sub-partition), else
    /// 1. An L2 slice's tag array divides its keys by this before indexing a set.
    pub fn set_group(&self) -> u64 {
        if self.indexing == PartitionIndexing::Random && self.hashed_slice_bits.is_some() {
            self.channels * self.slices
        } else {
            1
        }
    }

    /// Maps a byte address (any byte of the line).
    pub fn map(&self, addr: u64) -> DramLocation {
        let (channel, local) = match self.scheme {
            MappingScheme::Linear => self.split_channel(addr, false),
            MappingScheme::Xor => self.split_channel(addr, true),
            MappingScheme::Custom => return self.map_custom(addr),
        };
        let col_bytes = local & (self.row_bytes - 1);
        let t = local >> self.row_shift;
        let mut bank = t & (self.banks - 1);
        let row = (t >> self.bank_shift) & (self.rows - 1);
        if self.scheme == MappingScheme::Xor {
            bank ^= row & (self.banks - 1);
        }
        let local_line = local >> self.line_shift;
        let (slice, slice_line) = if self.slices == 1 {
            (0, local_line)
        } else {
            (local_line % self.slices, local_line / self.slices)
        };
        DramLocation {
            channel: channel as u32,
            slice: slice as u32,
            bank: bank as u32,
            row: row as u32,
            col: (col_bytes >> self.burst_shift) as u32,
            slice_line,
        }
    }

    /// The line-aligned address of a DRAM location: the inverse of [`AddressMap::map`]
    /// (`col` is a burst column; any burst of the line gives the line). Not under random
    /// partition indexing, which has none (the config refuses it with the row prefetcher, the
    /// one caller).
    pub fn unmap(&self, channel: u32, bank: u32, row: u32, col: u32) -> u64 {
        let col_bytes = (u64::from(col) << self.burst_shift) & !(self.line_bytes - 1);
        if let Some(f) = &self.custom {
            let s_bits = f.count(b'S');
            let fields = f.deposit(b'H', channel.into())
                | f.deposit(b'B', bank.into())
                | f.deposit(b'R', row.into())
                | f.deposit(b'C', col_bytes >> s_bits)
                | f.deposit(b'S', col_bytes & ((1 << s_bits) - 1));
            return match self.channel_bit {
                Some(s) => {
                    // Under IPOLY the channel given is the hashed one: the decoded channel is it
                    // XOR the term's channel bits (the hash is an XOR with the higher bits).
                    let channel = match self.indexing {
                        PartitionIndexing::Ipoly => {
                            u64::from(channel) ^ (self.ipoly_term(fields, s) >> self.slices.trailing_zeros())
                        }
                        _ => u64::from(channel),
                    };
                    let quotient = fields >> s;
                    ((quotient * self.channels + channel) << s) | (fields & ((1u64 << s) - 1))
                }
                None => fields,
            };
        }
        let xor = self.scheme == MappingScheme::Xor;
        let mut bank = u64::from(bank);
        if xor {
            bank ^= u64::from(row) & (self.banks - 1);
        }
        let local = (((u64::from(row) << self.bank_shift) | bank) << self.row_shift) | col_bytes;
        let s = self.interleave_shift;
        let mut chunk = (local >> s) * self.channels + u64::from(channel);
        if xor {
            // The channel hash XORs the low three chunk bits with the next three: an involution.
            chunk ^= (chunk >> 3) & 7;
        }
        (chunk << s) | (local & ((1u64 << s) - 1))
    }

    /// Splits an address into (channel, address within the channel).
    fn split_channel(&self, addr: u64, xor: bool) -> (u64, u64) {
        let s = self.interleave_shift;
        let offset = addr & ((1u64 << s) - 1);
        let mut chunk = addr >> s;
        if xor {
            // addr[s+2:s] ^= addr[s+5:s+3]  (s = 8: addr[10:8] XOR addr[13:11])
            chunk ^= (chunk >> 3) & 7;
        }
        let channel = chunk % self.channels;
        let local_chunk = chunk / self.channels;
        (channel, (local_chunk << s) | offset)
    }

    fn map_custom(&self, addr: u64) -> DramLocation {
        let f = self.custom.as_ref().expect("custom fields present");
        let original = addr;
        let (channel, addr) = match self.channel_bit {
            // dramid@s: the channel is the chunk number above bit s modulo the channels; the
            // quotient, put back above bit s, is what the fields are read from.
            Some(s) => {
                let chunk = addr >> s;
                (chunk % self.channels, ((chunk / self.channels) << s) | (addr & ((1u64 << s) - 1)))
            }
            None => (f.extract(addr, b'H'), addr),
        };
        let bank = f.extract(addr, b'B');
        let row = f.extract(addr, b'R') % self.rows;
        let col_bytes = (f.extract(addr, b'C') << f.count(b'S')) | f.extract(addr, b'S');
        if let (Some(slice_bits), Some(s)) = (self.hashed_slice_bits, self.channel_bit) {
            let decoded = channel * self.slices + (bank & (self.slices - 1));
            // `addr` without its slice bits, packed, highest first (the channel is already out).
            let mut partition_addr = addr;
            for b in (0..64).rev().filter(|b| slice_bits >> b & 1 == 1) {
                partition_addr = ((partition_addr >> (b + 1)) << b) | (partition_addr & ((1u64 << b) - 1));
            }
            let partition_line = partition_addr >> self.line_shift;
            let (slice, slice_line) = match self.indexing {
                PartitionIndexing::Random => {
                    let partitions = self.channels * self.slices;
                    // channel_bit is at least 7 (a line) and slices at most 16: the shift is ≥ 3.
                    let chunk = original >> (s - self.slices.trailing_zeros());
                    (mix(chunk) % partitions, partition_line * partitions + decoded)
                }
                _ => (decoded ^ self.ipoly_term(addr, s), partition_line),
            };
            return DramLocation {
                channel: (slice / self.slices) as u32,
                slice: (slice % self.slices) as u32,
                bank: bank as u32,
                row: row as u32,
                col: (col_bytes / self.burst_bytes) as u32,
                slice_line,
            };
        }
        // Inside a channel, lines are numbered by (row, bank, column) so slices alternate.
        let line_in_row = col_bytes / self.line_bytes;
        let lines_per_row = self.row_bytes / self.line_bytes;
        let local_line = ((row * self.banks) + bank) * lines_per_row + line_in_row;
        DramLocation {
            channel: channel as u32,
            slice: (local_line % self.slices) as u32,
            bank: bank as u32,
            row: row as u32,
            col: (col_bytes / self.burst_bytes) as u32,
            slice_line: local_line / self.slices,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn map_with(scheme: MappingScheme) -> AddressMap {
        let mut c = Config::default();
        c.dram.mapping.scheme = scheme;
        if scheme == MappingScheme::Custom {
            c.dram.channels = 8;
            c.dram.mapping.custom = "RRRRRRRRRRRRR.BBBB.CCCCC.HHH.SSSSSSS".into();
        }
        AddressMap::new(&c)
    }

    #[test]
    fn seed000_channel_hash_matches_the_formula() {
        let m = map_with(MappingScheme::Xor);
        for addr in [0u64, 0x100, 0x800, 0x1234_5600, 0xdead_be00, 0x7fff_ff00] {
            let formula = (((addr >> 11) << 3) | (((addr >> 8) & 7) ^ ((addr >> 11) & 7))) % 6;
            assert_eq!(u64::from(m.map(addr).channel), formula, "addr {addr:#x}");
        }
    }

    #[test]
    fn consecutive_lines_share_a_row_and_chunks_spread_over_channels() {
        let m = map_with(MappingScheme::Xor);
        let a = m.map(0x1000);
        let b = m.map(0x1080);
        assert_eq!((a.channel, a.bank, a.row), (b.channel, b.bank, b.row));
        assert_eq!(b.col, a.col + 2, "128-byte line = two 64-byte bursts");
        let chans: BTreeSet<u32> = (0..6u64).map(|i| m.map(i * 256).channel).collect();
        assert_eq!(chans.len(), 6, "six consecutive 256-byte chunks hit six channels");
    }

    #[test]
    fn every_scheme_is_a_bijection_on_lines() {
        for scheme in [MappingScheme::Linear, MappingScheme::Xor, MappingScheme::Custom] {
            let m = map_with(scheme);
            let mut seen = BTreeSet::new();
            let mut slice_lines = BTreeSet::new();
            for i in 0..20_000u64 {
                let addr = i * 128 * 7919 % (1 << 30) / 128 * 128;
                let l = m.map(addr);
                assert!(seen.insert((l.channel, l.bank, l.row, l.col)), "{scheme:?} aliases {addr:#x}");
                assert!(slice_lines.insert((l.channel, l.slice, l.slice_line)));
            }
        }
    }

    #[test]
    fn unmap_inverts_map_for_every_scheme() {
        for scheme in [MappingScheme::Linear, MappingScheme::Xor, MappingScheme::Custom] {
            let m = map_with(scheme);
            for i in 0..20_000u64 {
                let addr = i * 128 * 7919 % (1 << 30) / 128 * 128;
                let l = m.map(addr);
                assert_eq!(m.unmap(l.channel, l.bank, l.row, l.col), addr, "{scheme:?} {addr:#x}");
                assert_eq!(m.unmap(l.channel, l.bank, l.row, l.col + 1), addr, "second burst, same line");
            }
        }
    }

    #[test]
    fn xor_bank_permutation_spreads_row_strides() {
        // Addresses one full bank-row apart land in the same bank under linear mapping,
        // and in different banks under the XOR scheme.
        let c = Config::default();
        let stride = u64::from(c.dram.row_bytes * c.dram.banks * c.dram.channels);
        let lin = map_with(MappingScheme::Linear);
        let xor = map_with(MappingScheme::Xor);
        let lin_banks: BTreeSet<u32> = (0..16).map(|i| lin.map(i * stride).bank).collect();
        let xor_banks: BTreeSet<u32> = (0..16).map(|i| xor.map(i * stride).bank).collect();
        assert_eq!(lin_banks.len(), 1);
        assert!(xor_banks.len() > 8, "{xor_banks:?}");
    }

    /// GPGPU-Sim's `dramid@8` decoding of the GTX 480 config (6 channels, so not a bit field):
    /// checked against the decoding written out by hand, and inverted by `unmap`.
    #[test]
    fn channel_bit_takes_the_channel_by_modulo_and_decodes_the_rest() {
        let mut c = Config::default();
        c.dram.mapping.scheme = MappingScheme::Custom;
        c.dram.mapping.channel_bit = Some(8);
        c.dram.mapping.custom = "0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS".into();
        c.dram.rows = 4096;
        CustomFields::parse(&c.dram.mapping.custom, &c).unwrap();
        let m = AddressMap::new(&c);
        let burst = u64::from(c.dram_burst_bytes());
        let mut seen = BTreeSet::new();
        for i in 0..20_000u64 {
            // Below the 1.5 GB the 6 × 16 banks × 4096 rows × 4 KB hold.
            let addr = i * 128 * 7919 % (3 << 29) / 128 * 128;
            let chunk = addr >> 8;
            let rest = ((chunk / 6) << 8) | (addr & 0xff);
            let bank = (((rest >> 13) & 7) << 1) | ((rest >> 8) & 1);
            let row = (rest >> 16) & 0xfff;
            let col_bytes = ((((rest >> 9) & 0xf) << 2 | ((rest >> 6) & 3)) << 6) | (rest & 63);
            let l = m.map(addr);
            assert_eq!(
                (u64::from(l.channel), u64::from(l.bank), u64::from(l.row), u64::from(l.col)),
                (chunk % 6, bank, row, col_bytes / burst),
                "{addr:#x}"
            );
            assert!(seen.insert((l.channel, l.bank, l.row, l.col)), "aliases {addr:#x}");
            assert_eq!(m.unmap(l.channel, l.bank, l.row, l.col), addr, "{addr:#x}");
        }
        c.dram.mapping.custom = "0000RRRR.RRRRRRRR.BBBCCCCB.CHSSSSSS".into();
        assert!(CustomFields::parse(&c.dram.mapping.custom, &c).unwrap_err().contains("leave 'H' out"));
    }

    /// A machine of one of Accel-Sim's configs: `channels` × 2 slices, 8,192 rows of 2 KB and
    /// the `dramid@8` mapping `custom`.
    fn dramid8(channels: u32, custom: &str, indexing: PartitionIndexing) -> AddressMap {
        let mut c = Config::default();
        c.dram.channels = channels;
        c.dram.rows = 8192;
        c.dram.row_bytes = 2048;
        c.dram.mapping.scheme = MappingScheme::Custom;
        c.dram.mapping.channel_bit = Some(8);
        c.dram.mapping.custom = custom.into();
        c.dram.mapping.partition_indexing = indexing;
        CustomFields::parse(&c.dram.mapping.custom, &c).unwrap();
        AddressMap::new(&c)
    }

    /// A Volta-like machine of Accel-Sim's QV100 config: 32 channels.
    fn qv100(indexing: PartitionIndexing) -> AddressMap {
        dramid8(32, "0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS", indexing)
    }

    /// A TITAN X-like machine of Accel-Sim's SM6_TITANX config: 12 channels.
    fn titanx(indexing: PartitionIndexing) -> AddressMap {
        dramid8(12, "0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS", indexing)
    }

    /// GPGPU-Sim's IPOLY sub-partition, written out for this mapping: the decoded channel is
    /// address bits 8–12, the lowest bank bit is bit 13 (bit 8 once the channel is out), and the
    /// hash reads the bits from 14 (8 + 5 channel bits + 1 slice bit) up.
    #[test]
    fn ipoly_partition_indexing_follows_gpgpu_sims_decoding() {
        let m = qv100(PartitionIndexing::Ipoly);
        let mut seen = BTreeSet::new();
        let mut slice_lines = BTreeSet::new();
        for i in 0..20_000u64 {
            let addr = i * 128 * 7919 % (1 << 32) / 128 * 128;
            let (chip, low_bank) = ((addr >> 8) & 31, (addr >> 13) & 1);
            let slice = ipoly::hash(addr >> 14, chip * 2 + low_bank, 64);
            let l = m.map(addr);
            assert_eq!((u64::from(l.channel), u64::from(l.slice)), (slice / 2, slice % 2), "{addr:#x}");
            // Bank, row and column are the plain decoding's.
            let plain = qv100(PartitionIndexing::Consecutive).map(addr);
            assert_eq!((l.bank, l.row, l.col), (plain.bank, plain.row, plain.col), "{addr:#x}");
            // The slice numbers its lines by the address without bits 8–13.
            assert_eq!(l.slice_line, ((addr >> 14) << 1) | ((addr >> 7) & 1), "{addr:#x}");
            assert!(seen.insert((l.channel, l.bank, l.row, l.col)), "aliases {addr:#x}");
            assert!(slice_lines.insert((l.channel, l.slice, l.slice_line)), "slice line aliases {addr:#x}");
            assert_eq!(m.unmap(l.channel, l.bank, l.row, l.col), addr, "{addr:#x}");
        }
    }

    /// GPGPU-Sim's RANDOM case, written out for the TITAN X mapping: a 128-byte chunk
    /// (`addr >> (8 - 1)`) has one sub-partition of 24, bank, row and column are the plain
    /// decoding's, and the slice key is the partition line (the address without the channel,
    /// by modulo, and the lowest bank bit, bit 7 once the channel is out) × 24 + the decoded
    /// sub-partition, which the set index divides back out.
    #[test]
    fn random_partition_indexing_draws_a_sub_partition_per_chunk_and_keeps_keys_unique() {
        let (m, plain) = (titanx(PartitionIndexing::Random), titanx(PartitionIndexing::Consecutive));
        assert_eq!(m.set_group(), 24);
        assert_eq!(plain.set_group(), 1);
        let mut keys = BTreeSet::new();
        for i in 0..20_000u64 {
            let addr = i * 128 * 7919 % (1 << 32) / 128 * 128;
            let l = m.map(addr);
            let p = plain.map(addr);
            let slice = mix(addr >> 7) % 24;
            assert_eq!((u64::from(l.channel), u64::from(l.slice)), (slice / 2, slice % 2), "{addr:#x}");
            assert_eq!((l.bank, l.row, l.col), (p.bank, p.row, p.col), "{addr:#x}");
            let last = m.map(addr + 127);
            assert_eq!(
                (last.channel, last.slice, last.slice_line),
                (l.channel, l.slice, l.slice_line),
                "{addr:#x}"
            );
            let rest = ((addr >> 8) / 12) << 8 | (addr & 0xff);
            let (partition_line, decoded) = (rest >> 8, (addr >> 8) % 12 * 2 + ((rest >> 7) & 1));
            assert_eq!(l.slice_line, partition_line * 24 + decoded, "{addr:#x}");
            assert!(keys.insert((l.channel, l.slice, l.slice_line)), "slice key aliases {addr:#x}");
        }
    }

    /// A column walk of a 12 KiB-wide matrix (a multiple of the 12 × 256 bytes the modulo
    /// deals over channels) stays on one channel and slice without hashing; RANDOM spreads it
    /// over all 24 sub-partitions, about evenly.
    #[test]
    fn random_partition_indexing_spreads_a_stride_the_modulo_camps_on() {
        let m = titanx(PartitionIndexing::Random);
        let mut count = [0u32; 24];
        for t in 0..2_400u64 {
            let l = m.map(t * 12 * 1024);
            count[(l.channel * 2 + l.slice) as usize] += 1;
        }
        assert!(count.iter().all(|&n| (60..=140).contains(&n)), "{count:?}");
    }

    #[test]
    fn ipoly_spreads_a_4_kb_stride_that_the_modulo_keeps_on_two_channels() {
        // A[tid·4096]: the plain `dramid@8` decoding sends every line to channel 0 or 16.
        let channels =
            |m: &AddressMap| -> BTreeSet<u32> { (0..64u64).map(|t| m.map(t * 4096).channel).collect() };
        assert_eq!(channels(&qv100(PartitionIndexing::Consecutive)).len(), 2);
        assert!(channels(&qv100(PartitionIndexing::Ipoly)).len() >= 16);
    }
}
