//! Axis ranges and ticks at round numbers (1, 2, 2.5 or 5 times a power of ten), labelled (with
//! `metrics::decimal`) with the decimals their step needs, so every label on an axis has the
//! same number of them.

/// A value axis: its range and its ticks.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<f64>,
    /// Decimals every tick label shows.
    pub decimals: usize,
}

/// A round step near `span / 5`.
fn step(span: f64) -> f64 {
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let m = [1.0, 2.0, 2.5, 5.0, 10.0].into_iter().find(|m| m * mag >= raw).unwrap_or(10.0);
    m * mag
}

/// The axis for `values`, which always includes `from` (0 for bars, so a bar's length is its
/// value; the smallest value for lines), with room above the largest value (and below the
/// smallest, when it is negative) for labels.
pub fn axis(values: impl Iterator<Item = f64>, from: Option<f64>) -> Axis {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in values.filter(|v| v.is_finite()).chain(from) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        let pad = if hi.abs() > 1e-12 { hi.abs() * 0.5 } else { 1.0 };
        (lo, hi) = (lo - if lo < 0.0 || from.is_none() { pad } else { 0.0 }, hi + pad);
    }
    let room = (hi - lo) * 0.15;
    let hi = hi + room;
    let lo = if lo < 0.0 || from.is_none_or(|f| lo < f) { lo - room } else { lo };
    let s = step(hi - lo);
    let first = (lo / s).floor() * s;
    let last = (hi / s).ceil() * s;
    let mut ticks = Vec::new();
    let mut k = 0;
    while first + s * k as f64 <= last + s * 1e-9 {
        let t = first + s * k as f64;
        ticks.push(if t.abs() < s * 1e-9 { 0.0 } else { t });
        k += 1;
    }
    let decimals =
        (0..=6).find(|d| ((s * 10f64.powi(*d)).round() - s * 10f64.powi(*d)).abs() < 1e-6).unwrap_or(6);
    Axis { lo: first, hi: last, ticks, decimals: decimals as usize }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_values_with_room_above() {
        let a = axis([3.0, 7.2].into_iter(), Some(0.0));
        assert_eq!(a.ticks, [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!((a.lo, a.hi, a.decimals), (0.0, 10.0, 0));
        let a = axis([0.12, 0.31].into_iter(), Some(0.0));
        assert_eq!(a.ticks.len(), 5, "{a:?}");
        assert_eq!(a.decimals, 1);
        let a = axis([-12.0, 30.0].into_iter(), Some(0.0));
        assert!(a.lo < -12.0 && a.hi > 30.0 && a.ticks.contains(&0.0), "{a:?}");
        let a = axis([2_500_000.0].into_iter(), Some(0.0));
        assert!(a.hi >= 2_875_000.0 && a.decimals == 0, "{a:?}");
        let a = axis(std::iter::empty(), Some(0.0));
        assert_eq!((a.lo, a.hi), (0.0, 1.25), "nothing to show: 0 to 1 with room");
        let a = axis([5.0, 5.0].into_iter(), None);
        assert!(a.lo < 5.0 && a.hi > 5.0, "a flat line is centred: {a:?}");
    }
}
