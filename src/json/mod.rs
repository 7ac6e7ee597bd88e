//! JSON helpers shared by everyone: comparison with Python's equality,
//! pretty writing that keeps key order, a tree that borrows its strings
//! from its text, where a JSON pointer's value sits in a text, the leaves
//! of a value with their paths, and Python literals read as JSON.

pub mod compare;
pub mod leaves;
pub mod locate;
pub mod pyliteral;
pub mod tree;
