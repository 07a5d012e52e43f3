//! The BFS input: a seeded random undirected graph of Rodinia's `graphgen` kind, in CSR form,
//! and the levels Rodinia's BFS computes on it.
//!
//! As Rodinia's `bfs/inputGen/graphgen.cpp`: every node links to a uniform 2–4
//! (`MIN_EDGES`..`MAX_INIT_EDGES`) nodes drawn uniformly at random (loops and repeated links
//! allowed) with a weight of 1–10, and each link is stored at both ends, so 1M nodes carry about 6M directed edges
//! (Rodinia's `graph1MW_6.txt`). Our own hash replaces the C library's `rand()`. The graph is
//! generated once per workload and shared by every kernel of it.

use super::super::hash::{hash, mix};
use super::progress;

/// A graph in CSR form: node `n`'s edges are `edges[starts[n] .. starts[n + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    pub starts: Vec<u32>,
    pub edges: Vec<u32>,
    /// Each edge's weight, 1–10 (graphgen's `MIN_WEIGHT`..`MAX_WEIGHT`; the same at both ends).
    pub weights: Vec<u8>,
}

impl Graph {
    /// The graph of `nodes` nodes for `seed`.
    pub fn generate(nodes: u32, seed: u64) -> Graph {
        let n = u64::from(nodes);
        progress::begin("graph nodes", Some(n));
        let links: Vec<(u32, u32, u8)> = (0..n)
            .flat_map(|a| {
                progress::advance(1);
                let k = 2 + hash(seed, &[0xb5, a]) % 3;
                (0..k).map(move |i| {
                    let b = (mix(hash(seed, &[0xed, a, i])) % n) as u32;
                    (a as u32, b, 1 + (hash(seed, &[0x3e, a, i]) % 10) as u8)
                })
            })
            .collect();
        let mut degree = vec![0u32; nodes as usize + 1];
        for &(a, b, _) in &links {
            degree[a as usize] += 1;
            degree[b as usize] += 1;
        }
        let mut starts = Vec::with_capacity(nodes as usize + 1);
        let mut sum = 0u32;
        for d in &degree[..nodes as usize] {
            starts.push(sum);
            sum += d;
        }
        starts.push(sum);
        let mut fill: Vec<u32> = starts[..nodes as usize].to_vec();
        let mut edges = vec![0u32; sum as usize];
        let mut weights = vec![0u8; sum as usize];
        for &(a, b, w) in &links {
            for (from, to) in [(a, b), (b, a)] {
                let e = fill[from as usize] as usize;
                (edges[e], weights[e]) = (to, w);
                fill[from as usize] += 1;
            }
        }
        Graph { starts, edges, weights }
    }

    pub fn nodes(&self) -> u32 {
        self.starts.len() as u32 - 1
    }

    /// Node `n`'s first edge and edge count (Rodinia's `Node { starting, no_of_edges }`).
    #[inline]
    pub fn node(&self, n: u32) -> (u32, u32) {
        let s = self.starts[n as usize];
        (s, self.starts[n as usize + 1] - s)
    }

    /// Runs Rodinia's two BFS kernels functionally from `source`, thread by thread, until no
    /// thread sets `over`: returns `g_cost` (-1 for unreached nodes) and the iterations run.
    pub fn rodinia_bfs(&self, source: u32) -> (Vec<i32>, u32) {
        let n = self.nodes() as usize;
        let (mut mask, mut updating, mut visited) = (vec![false; n], vec![false; n], vec![false; n]);
        let mut cost = vec![-1i32; n];
        mask[source as usize] = true;
        visited[source as usize] = true;
        cost[source as usize] = 0;
        let mut iterations = 0;
        progress::begin("BFS level", None);
        loop {
            iterations += 1;
            progress::advance(1);
            // Kernel 1: expand the frontier.
            for tid in 0..n {
                if mask[tid] {
                    mask[tid] = false;
                    let (s, d) = self.node(tid as u32);
                    for &id in &self.edges[s as usize..(s + d) as usize] {
                        if !visited[id as usize] {
                            cost[id as usize] = cost[tid] + 1;
                            updating[id as usize] = true;
                        }
                    }
                }
            }
            // Kernel 2: the updated nodes become the next frontier.
            let mut over = false;
            for tid in 0..n {
                if updating[tid] {
                    mask[tid] = true;
                    visited[tid] = true;
                    over = true;
                    updating[tid] = false;
                }
            }
            if !over {
                return (cost, iterations);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn levels_equal_a_queue_bfs_and_edges_are_symmetric() {
        let g = Graph::generate(3000, 5);
        let edges = g.edges.len() as f64 / 3000.0;
        assert!((5.7..6.3).contains(&edges), "about 6 edges per node: {edges}");
        for a in 0..g.nodes() {
            let (s, d) = g.node(a);
            for &b in &g.edges[s as usize..(s + d) as usize] {
                let (s2, d2) = g.node(b);
                assert!(g.edges[s2 as usize..(s2 + d2) as usize].contains(&a), "{a}–{b} both ways");
            }
        }
        let (cost, iterations) = g.rodinia_bfs(0);
        // An independent breadth-first search with a queue.
        let mut level = vec![-1i32; 3000];
        level[0] = 0;
        let mut queue = VecDeque::from([0u32]);
        while let Some(a) = queue.pop_front() {
            let (s, d) = g.node(a);
            for &b in &g.edges[s as usize..(s + d) as usize] {
                if level[b as usize] < 0 {
                    level[b as usize] = level[a as usize] + 1;
                    queue.push_back(b);
                }
            }
        }
        assert_eq!(cost, level);
        let depth = *level.iter().max().unwrap() as u32;
        assert_eq!(iterations, depth + 1, "one iteration per level, and one that finds nothing");
        assert!(level.iter().filter(|&&l| l >= 0).count() > 2900, "the graph is mostly connected");
    }
}
