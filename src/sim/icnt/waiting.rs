//! Which inputs of a crossbar network have a packet waiting, filed under the output their
//! head packet goes to, so that a cycle looks only at the inputs whose output can take a
//! packet ([`super::Network::step`]). On a memory-bound kernel most inputs wait for an output
//! with no credit left, cycle after cycle; looking them over one by one was most of the
//! crossbar's time.

/// No packet registered for an input.
const NONE: u32 = u32::MAX;

/// Per output, the set of inputs whose head packet goes there.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Waiting {
    /// 64-bit words per set.
    words: usize,
    /// Per output, `words` words: the inputs whose head packet goes there.
    by_output: Vec<u64>,
    /// Per input, the output of its head packet (`NONE`: no packet).
    output_of: Vec<u32>,
    /// Inputs with a packet.
    count: usize,
    /// Per output, the inputs filed under it; and the outputs with any, one bit each.
    filed: Vec<u32>,
    targets: Vec<u64>,
    /// Scratch: the union of the sets of this cycle's open outputs.
    open: Vec<u64>,
}

impl Waiting {
    pub fn new(inputs: usize, outputs: usize) -> Waiting {
        let words = inputs.div_ceil(64);
        Waiting {
            words,
            by_output: vec![0; words * outputs],
            output_of: vec![NONE; inputs],
            count: 0,
            filed: vec![0; outputs],
            targets: vec![0; outputs.div_ceil(64)],
            open: vec![0; words],
        }
    }

    /// Inputs with a packet.
    #[inline]
    pub fn count(&self) -> usize {
        self.count
    }

    /// The output input `i`'s head packet goes to.
    #[inline]
    pub fn output_of(&self, i: usize) -> Option<usize> {
        let o = self.output_of[i];
        (o != NONE).then_some(o as usize)
    }

    /// Files input `i` under the output of its head packet now (`None`: it has none).
    /// Mostly it already is (an input offers its head every cycle it works): that check is
    /// inlined into the caller, the refiling is not (callgrind, built-in `bfs`: 3.9M calls
    /// of 40 instructions each).
    #[inline]
    pub fn set(&mut self, i: usize, output: Option<usize>) {
        if self.output_of(i) != output {
            self.refile(i, output);
        }
    }

    #[inline(never)]
    fn refile(&mut self, i: usize, output: Option<usize>) {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        if let Some(old) = self.output_of(i) {
            self.by_output[old * self.words + word] &= !bit;
            self.count -= 1;
            self.filed[old] -= 1;
            if self.filed[old] == 0 {
                self.targets[old / 64] &= !(1 << (old % 64));
            }
        }
        match output {
            Some(o) => {
                self.by_output[o * self.words + word] |= bit;
                self.output_of[i] = o as u32;
                self.count += 1;
                self.filed[o] += 1;
                self.targets[o / 64] |= 1 << (o % 64);
            }
            None => self.output_of[i] = NONE,
        }
    }

    /// Makes this cycle's candidates the inputs filed under the outputs for which `open`
    /// holds (an output no input waits for is not asked).
    #[inline]
    pub fn open_where(&mut self, mut open: impl FnMut(usize) -> bool) {
        for u in self.open.iter_mut() {
            *u = 0;
        }
        for t in 0..self.targets.len() {
            let mut bits = self.targets[t];
            while bits != 0 {
                let o = t * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if open(o) {
                    for w in 0..self.words {
                        self.open[w] |= self.by_output[o * self.words + w];
                    }
                }
            }
        }
    }

    /// The candidate inputs in round-robin order: `from` up to the last input, then from
    /// input 0 up to `from`.
    pub fn candidates(&self, from: usize, order: &mut Vec<u32>) {
        order.clear();
        let (start, upper) = (from / 64, !0u64 << (from % 64));
        for k in 0..=self.words {
            let w = if start + k >= self.words { start + k - self.words } else { start + k };
            let part = match k {
                0 => upper,
                _ if k == self.words => !upper,
                _ => !0,
            };
            let mut bits = self.open[w] & part;
            while bits != 0 {
                order.push((w * 64) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Candidates come in round-robin order from `from`, across word boundaries, and only
    /// those filed under an open output.
    #[test]
    fn candidates_of_open_outputs_in_round_robin_order() {
        let mut w = Waiting::new(130, 3);
        for (i, o) in [(0, 0), (5, 1), (63, 0), (64, 2), (70, 0), (129, 0)] {
            w.set(i, Some(o));
        }
        assert_eq!(w.count(), 6);
        let mut order = Vec::new();
        w.open_where(|o| o == 0);
        w.candidates(64, &mut order);
        assert_eq!(order, [70, 129, 0, 63], "from 64 up, then from 0");
        w.candidates(0, &mut order);
        assert_eq!(order, [0, 63, 70, 129]);
        w.open_where(|o| o != 1);
        w.candidates(70, &mut order);
        assert_eq!(order, [70, 129, 0, 63, 64]);
        // A head that moves to another output, then leaves.
        w.set(70, Some(1));
        w.open_where(|o| o == 0 || o == 2);
        w.candidates(0, &mut order);
        assert_eq!(order, [0, 63, 64, 129]);
        w.set(70, None);
        w.set(0, None);
        assert_eq!((w.count(), w.output_of(70), w.output_of(63)), (4, None, Some(0)));
        // Only outputs some input waits for are asked.
        w.set(5, None);
        let mut asked = Vec::new();
        w.open_where(|o| {
            asked.push(o);
            true
        });
        assert_eq!(asked, [0, 2]);
        w.set(5, Some(1));
        w.open_where(|o| o <= 1);
        w.candidates(0, &mut order);
        assert_eq!(order, [5, 63, 129]);
    }
}
