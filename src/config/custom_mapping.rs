//! `dram.mapping.custom`: which address bit belongs to which DRAM field, checked against the
//! machine it maps (seed 000 §II-C's mapping written out bit by bit).

use super::Config;

/// A custom mapping: for each address bit (most significant first) a letter naming the field
/// it belongs to: `R` row, `B` bank, `C` column, `H` channel, `S` byte within the column
/// field's unit, `0` unused. `.` and `_` are spacers. Address bits above the string are ignored.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CustomFields {
    /// (field letter, address bit), most significant first.
    bits: Vec<(u8, u32)>,
}

impl CustomFields {
    /// Parses and checks the field widths against the machine.
    pub fn parse(spec: &str, c: &Config) -> Result<CustomFields, String> {
        let letters: Vec<u8> = spec.bytes().filter(|b| !matches!(b, b'.' | b'_' | b' ')).collect();
        if letters.is_empty() {
            return Err("is empty; give one letter per address bit, most significant first, e.g. \"RRRRRRRRRRRRR.BBBB.CCCCC.HHH.SSSSSSS\" (R row, B bank, C column, H channel, S byte, 0 unused)".into());
        }
        if letters.len() > 64 {
            return Err(format!("has {} bits; at most 64", letters.len()));
        }
        if let Some(bad) = letters.iter().find(|b| !b"RBCHS0".contains(b)) {
            return Err(format!(
                "has letter '{}'; valid letters: R (row), B (bank), C (column), H (channel), S (byte), 0 (unused)",
                *bad as char
            ));
        }
        let n = letters.len() as u32;
        let bits: Vec<(u8, u32)> = letters.iter().enumerate().map(|(i, &l)| (l, n - 1 - i as u32)).collect();
        let f = CustomFields { bits };
        let need = |letter: u8, count: u64, what: &str| -> Result<(), String> {
            if !count.is_power_of_two() {
                return Err(format!("needs {what} = {count} to be a power of two"));
            }
            let have = f.count(letter);
            let want = count.trailing_zeros();
            if have != want {
                return Err(format!(
                    "has {have} '{}' bits but {what} = {count} needs {want}",
                    letter as char
                ));
            }
            Ok(())
        };
        match c.dram.mapping.channel_bit {
            Some(s) => {
                if f.count(b'H') > 0 {
                    return Err("has 'H' bits, but with dram.mapping.channel_bit the channel is taken by modulo; leave 'H' out".into());
                }
                if s < c.l2.line_bytes.trailing_zeros() || s > 40 {
                    return Err(format!(
                        "with dram.mapping.channel_bit = {s}: the channel bit must be {}..40 (at or above the {}-byte line)",
                        c.l2.line_bytes.trailing_zeros(),
                        c.l2.line_bytes
                    ));
                }
            }
            None => need(b'H', c.dram.channels.into(), "dram.channels")?,
        }
        need(b'B', c.dram.banks.into(), "dram.banks")?;
        let row_bits = f.count(b'C') + f.count(b'S');
        let want = c.dram.row_bytes.trailing_zeros();
        if row_bits != want {
            return Err(format!(
                "has {row_bits} 'C'+'S' bits but dram.row_bytes = {} needs {want}",
                c.dram.row_bytes
            ));
        }
        let line_bits = c.l2.line_bytes.trailing_zeros();
        let low_ok = f.bits.iter().filter(|(_, b)| *b < line_bits).all(|(l, _)| matches!(l, b'S' | b'C'));
        if !low_ok {
            return Err(format!(
                "must keep the {line_bits} lowest bits (one {}-byte line) in 'S'/'C' so a line is not split",
                c.l2.line_bytes
            ));
        }
        Ok(f)
    }

    /// Number of bits of a field.
    pub fn count(&self, letter: u8) -> u32 {
        self.bits.iter().filter(|(l, _)| *l == letter).count() as u32
    }

    /// The address bits of a field holding `value` (the inverse of [`CustomFields::extract`]).
    pub fn deposit(&self, letter: u8, value: u64) -> u64 {
        let width = self.count(letter);
        let mut addr = 0u64;
        let mut i = 0;
        for &(l, bit) in &self.bits {
            if l == letter {
                i += 1;
                addr |= ((value >> (width - i)) & 1) << bit;
            }
        }
        addr
    }

    /// The address bits of the `n` least significant bits of a field.
    pub fn lowest_bits(&self, letter: u8, n: u32) -> u64 {
        self.bits.iter().rev().filter(|(l, _)| *l == letter).take(n as usize).fold(0, |m, (_, b)| m | 1 << b)
    }

    /// The value of a field, its bits taken in order of significance.
    pub fn extract(&self, addr: u64, letter: u8) -> u64 {
        let mut v = 0u64;
        for &(l, bit) in &self.bits {
            if l == letter {
                v = (v << 1) | ((addr >> bit) & 1);
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_fields_are_checked() {
        let mut c = Config::default();
        c.dram.channels = 8;
        assert!(CustomFields::parse("RRRR.BBBB.CCCCC.HHH.SSSSSSS", &c).is_ok());
        let e = CustomFields::parse("RRRR.BBB.CCCCC.HHH.SSSSSSS", &c).unwrap_err();
        assert!(e.contains("3 'B' bits but dram.banks = 16 needs 4"), "{e}");
        let e = CustomFields::parse("RRRR.BBBB.CCCCC.HHH.SSSSSSX", &c).unwrap_err();
        assert!(e.contains("letter 'X'"), "{e}");
        c.dram.channels = 6;
        let e = CustomFields::parse("RRRR.BBBB.CCCCC.HHH.SSSSSSS", &c).unwrap_err();
        assert!(e.contains("power of two"), "{e}");
    }
}
