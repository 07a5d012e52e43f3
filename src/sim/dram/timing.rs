//! GDDR5 timing in DRAM command-clock cycles, converted once from the config (MECHANISMS §2).

use crate::config::Config;

/// Every timing constraint the command scheduler enforces, in DRAM cycles (tCK).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Timing {
    pub rc: u64,
    pub rcd: u64,
    pub rp: u64,
    pub cas: u64,
    pub ras: u64,
    pub rrd: u64,
    pub wtr: u64,
    pub faw: u64,
    pub wl: u64,
    pub rtp: u64,
    /// RD → PRE on any bank of the read's group (0: none).
    pub rtpl: u64,
    pub burst: u64,
    pub rtrs: u64,
    pub ccdl: u64,
    pub ccds: u64,
    pub wr: u64,
    /// Refresh interval (0 = no refresh).
    pub refi: u64,
    pub rfc: u64,
}

impl Timing {
    /// Converts the config's ns/tCK values, rounding up.
    pub fn from_config(c: &Config) -> Timing {
        let tck = c.tck_ns();
        let t = &c.dram.timing;
        let cy = |v: crate::config::Time| u64::from(v.cycles(tck));
        let (refi, rfc) = match &c.dram.refresh {
            Some(r) => (cy(r.t_refi), cy(r.t_rfc)),
            None => (0, 0),
        };
        Timing {
            rc: cy(t.t_rc),
            rcd: cy(t.t_rcd),
            rp: cy(t.t_rp),
            cas: cy(t.t_cas),
            ras: cy(t.t_ras),
            rrd: cy(t.t_rrd),
            wtr: cy(t.t_wtr),
            faw: cy(t.t_faw),
            wl: cy(t.t_wl),
            rtp: cy(t.t_rtp),
            rtpl: cy(t.t_rtpl),
            burst: cy(t.t_burst),
            rtrs: cy(t.t_rtrs),
            ccdl: cy(t.t_ccdl),
            ccds: cy(t.t_ccds),
            wr: cy(t.t_wr),
            refi,
            rfc,
        }
    }

    /// RD → WR on the same channel: the read data must clear the bus, plus turnaround.
    pub fn read_to_write(&self) -> u64 {
        (self.cas + self.burst + self.rtrs).saturating_sub(self.wl)
    }

    /// WR → RD on the same channel: write data, then tWTR.
    pub fn write_to_read(&self) -> u64 {
        self.wl + self.burst + self.wtr
    }

    /// WR → PRE on the same bank: write data, then write recovery.
    pub fn write_to_precharge(&self) -> u64 {
        self.wl + self.burst + self.wr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed000_gddr5_in_cycles() {
        let t = Timing::from_config(&Config::default());
        assert_eq!((t.rc, t.rcd, t.rp, t.cas, t.ras, t.rrd, t.wtr, t.faw), (60, 18, 18, 18, 42, 9, 8, 35));
        assert_eq!((t.wl, t.rtp, t.burst, t.rtrs, t.ccdl, t.ccds, t.wr), (4, 3, 2, 1, 3, 2, 18));
        assert_eq!(t.rtpl, 0, "no group-wide read-to-precharge rule unless a machine sets one");
    }
}
