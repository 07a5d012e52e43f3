//! Counters that add up across units: a machine's total is the sum of its SMs', slices' or
//! channels' counters. A struct declared with [`counters!`] adds every one of its fields, so a
//! new counter is part of every total the moment it is declared (none silently reads 0).

use super::Histogram;

/// Counters of one unit that add into a total.
pub trait Counters {
    fn add(&mut self, other: &Self);
}

impl Counters for u64 {
    fn add(&mut self, other: &Self) {
        *self += *other;
    }
}

/// Per-cause or per-bin counts.
impl<const N: usize> Counters for [u64; N] {
    fn add(&mut self, other: &Self) {
        for (a, b) in self.iter_mut().zip(other) {
            *a += b;
        }
    }
}

/// Occupancy histograms whose length grows with the largest value seen.
impl Counters for Vec<u64> {
    fn add(&mut self, other: &Self) {
        if self.len() < other.len() {
            self.resize(other.len(), 0);
        }
        for (a, b) in self.iter_mut().zip(other) {
            *a += b;
        }
    }
}

impl Counters for Histogram {
    fn add(&mut self, other: &Self) {
        self.merge(other);
    }
}

/// The sum of a set of units' counters.
pub fn total<'a, T: Counters + Default + 'a>(units: impl IntoIterator<Item = &'a T>) -> T {
    let mut t = T::default();
    for u in units {
        t.add(u);
    }
    t
}

/// Declares a counter struct (all fields public) whose [`Counters::add`] adds every field.
macro_rules! counters {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* pub $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$meta])*
        pub struct $name {
            $($(#[$fmeta])* pub $field: $ty),*
        }

        impl $crate::sim::stats::Counters for $name {
            fn add(&mut self, other: &Self) {
                $($crate::sim::stats::Counters::add(&mut self.$field, &other.$field);)*
            }
        }
    };
}
pub(crate) use counters;

#[cfg(test)]
mod tests {
    use super::*;

    counters! {
        /// A test struct.
        #[derive(Debug, PartialEq, Default)]
        pub struct Sample {
            pub a: u64,
            pub b: [u64; 2],
            pub c: Vec<u64>,
        }
    }

    #[test]
    fn every_field_adds() {
        let x = Sample { a: 1, b: [2, 3], c: vec![4] };
        let y = Sample { a: 10, b: [20, 30], c: vec![40, 50] };
        assert_eq!(total([&x, &y]), Sample { a: 11, b: [22, 33], c: vec![44, 50] });
    }
}
