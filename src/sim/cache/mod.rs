//! Cache building blocks shared by the L1D and the L2 slices: the tag array with its
//! set-index function and replacement policy, and the MSHR table.

pub mod index;
pub mod mshr;
pub mod replace;
pub mod tags;
