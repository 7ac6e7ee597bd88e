//! JSON helpers shared by everyone: comparison with Python's equality,
//! pretty writing that keeps key order, and a tree that remembers where
//! each value is in its text.

pub mod compare;
pub mod text;
pub mod tree;
