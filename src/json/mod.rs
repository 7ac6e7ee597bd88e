//! JSON helpers shared by everyone: comparison with Python's equality,
//! pretty writing that keeps key order, a tree that borrows its strings
//! from its text, and where a JSON pointer's value sits in a text.

pub mod compare;
pub mod locate;
pub mod tree;
