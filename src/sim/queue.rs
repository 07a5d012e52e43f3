//! A bounded FIFO: a full queue is back-pressure, never growth (DESIGN rule 5).
//! Storage is allocated once, at construction. And a latency queue: a FIFO in which every
//! item waits the same number of cycles.

use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BoundedQueue<T> {
    items: VecDeque<T>,
    capacity: usize,
}

impl<T> BoundedQueue<T> {
    pub fn new(capacity: usize) -> BoundedQueue<T> {
        BoundedQueue { items: VecDeque::with_capacity(capacity), capacity }
    }

    /// Appends, or hands the item back when full.
    #[inline]
    pub fn push(&mut self, item: T) -> Result<(), T> {
        if self.items.len() >= self.capacity {
            return Err(item);
        }
        self.items.push_back(item);
        Ok(())
    }

    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        self.items.pop_front()
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.items.front()
    }

    #[inline]
    pub fn front_mut(&mut self) -> Option<&mut T> {
        self.items.front_mut()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    #[inline]
    pub fn is_full(&self) -> bool {
        self.items.len() >= self.capacity
    }

    /// Free slots.
    #[inline]
    pub fn free(&self) -> usize {
        self.capacity - self.items.len()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }

    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut T> {
        self.items.iter_mut()
    }
}

/// A bounded FIFO whose items are built where they stay: its storage, allocated once, holds
/// `capacity + 1` items, a new one is written into the slot after the last
/// ([`SlotQueue::next_slot`]) and taken in by [`SlotQueue::commit`], and a popped one is read
/// in its slot. Nothing is moved, which matters for large items: the LD/ST unit's memory
/// instructions carry up to 64 coalesced lines (about 900 bytes), and copying each one into
/// and out of a `VecDeque` was 3.4 % of a trace run's instructions (callgrind, Rodinia BFS).
/// Slots outside the queue keep whatever was last written there; comparisons and the debug
/// view (and so the machine's state hash) see only the items in the queue.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct SlotQueue<T> {
    slots: Vec<T>,
    first: usize,
    len: usize,
    capacity: usize,
}

impl<T: Default> SlotQueue<T> {
    pub fn new(capacity: usize) -> SlotQueue<T> {
        SlotQueue { slots: (0..=capacity).map(|_| T::default()).collect(), first: 0, len: 0, capacity }
    }
}

impl<T> SlotQueue<T> {
    /// The slot of the `i`-th item from the front (`i` ≤ capacity).
    #[inline]
    fn at(&self, i: usize) -> usize {
        let k = self.first + i;
        if k > self.capacity { k - self.capacity - 1 } else { k }
    }

    /// The slot the next item is written into, free even when the queue is full (its
    /// content is stale until written).
    #[inline]
    pub fn next_slot(&mut self) -> &mut T {
        let k = self.at(self.len);
        &mut self.slots[k]
    }

    /// Takes the item written into [`SlotQueue::next_slot`] in at the back; false (and the
    /// item not taken) when the queue is full.
    #[inline]
    #[must_use]
    pub fn commit(&mut self) -> bool {
        if self.is_full() {
            return false;
        }
        self.len += 1;
        true
    }

    /// Removes the front item and gives it as it stays in its slot until the next write.
    #[inline]
    pub fn pop(&mut self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        let k = self.first;
        self.first = self.at(1);
        self.len -= 1;
        Some(&self.slots[k])
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.slots[self.first])
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn is_full(&self) -> bool {
        self.len >= self.capacity
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The items, front first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        (0..self.len).map(|i| &self.slots[self.at(i)])
    }
}

impl<T: PartialEq> PartialEq for SlotQueue<T> {
    fn eq(&self, other: &Self) -> bool {
        self.capacity() == other.capacity() && self.iter().eq(other.iter())
    }
}

impl<T: Eq> Eq for SlotQueue<T> {}

impl<T: std::fmt::Debug> std::fmt::Debug for SlotQueue<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Items that each wait out the same latency, oldest first: (cycle it is ready, item). Every
/// item waits as long, so the queue is in ready order and only its head is ever due. Used for
/// the fixed delays of a pipeline stage: the L1's and L2's hit pipelines, GPGPU-Sim's L1 and
/// L2 (ROP) latency queues in front of a tag lookup, and its DRAM latency queue. The owner
/// bounds it: it knows how many items its stage can hold.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LatencyQueue<T> {
    items: VecDeque<(u64, T)>,
    latency: u64,
}

impl<T> LatencyQueue<T> {
    /// Items wait `latency` cycles; room for `capacity` is allocated at once.
    pub fn new(latency: u64, capacity: usize) -> LatencyQueue<T> {
        LatencyQueue { items: VecDeque::with_capacity(capacity), latency }
    }

    /// Queues `item`, arriving at cycle `now`: it is ready at `now + latency`.
    #[inline]
    pub fn push(&mut self, now: u64, item: T) {
        self.items.push_back((now + self.latency, item));
    }

    /// The oldest item, if its latency has passed by cycle `now`.
    #[inline]
    pub fn ready(&self, now: u64) -> Option<&T> {
        self.items.front().filter(|&&(at, _)| at <= now).map(|(_, item)| item)
    }

    /// Takes the oldest item, if its latency has passed by cycle `now`.
    #[inline]
    pub fn pop_ready(&mut self, now: u64) -> Option<T> {
        self.ready(now)?;
        self.items.pop_front().map(|(_, item)| item)
    }

    /// The cycles every item waits.
    #[inline]
    pub fn latency(&self) -> u64 {
        self.latency
    }

    /// When the oldest item is ready.
    #[inline]
    pub fn next_at(&self) -> Option<u64> {
        self.items.front().map(|&(at, _)| at)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// (ready cycle, item), oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &(u64, T)> {
        self.items.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_latency_queue_holds_each_item_for_its_latency_in_order() {
        let mut q = LatencyQueue::new(3, 2);
        q.push(10, 'a');
        q.push(11, 'b');
        assert_eq!((q.next_at(), q.ready(12)), (Some(13), None));
        assert_eq!(q.pop_ready(12), None);
        assert_eq!(q.pop_ready(13), Some('a'));
        assert_eq!(q.ready(13), None, "b is ready at 14");
        assert_eq!((q.len(), q.pop_ready(20), q.is_empty()), (1, Some('b'), true));
    }

    #[test]
    fn a_slot_queue_keeps_order_across_the_wrap_and_sees_only_its_items() {
        let mut q: SlotQueue<u32> = SlotQueue::new(2);
        let mut seen = Vec::new();
        for x in 1..=7 {
            *q.next_slot() = x;
            assert!(q.commit());
            if x % 2 == 1 {
                *q.next_slot() = 100 + x;
                assert!(q.commit());
                *q.next_slot() = 999;
                assert!(!q.commit(), "full at two");
                seen.push(*q.pop().expect("item"));
            } else {
                seen.extend(q.pop().copied());
                seen.extend(q.pop().copied());
                assert_eq!(q.pop(), None);
            }
        }
        assert_eq!(seen, [1, 101, 2, 3, 103, 4, 5, 105, 6, 7]);
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), [107]);
        // The same items after different histories (stale slots differ) compare equal.
        let mut fresh: SlotQueue<u32> = SlotQueue::new(2);
        *fresh.next_slot() = 107;
        assert!(fresh.commit());
        assert_eq!(q, fresh);
        assert_eq!(format!("{q:?}"), "[107]");
    }

    #[test]
    fn full_queue_hands_the_item_back() {
        let mut q = BoundedQueue::new(2);
        assert_eq!(q.push(1), Ok(()));
        assert_eq!(q.push(2), Ok(()));
        assert_eq!(q.push(3), Err(3));
        assert!(q.is_full());
        assert_eq!(q.pop(), Some(1));
        assert_eq!(q.free(), 1);
    }
}
