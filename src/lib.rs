//! talkforge: a toolchain for conversational tool-use benchmarks in the style
//! of ToolTalk and API-Bank. See DESIGN.md in the shared folder for the
//! layout and the command-line contract.

pub mod allocator;
pub mod apibank;
pub mod check;
pub mod cli;
pub mod dataset;
pub mod error;
pub mod eval;
pub mod fill;
pub mod gen;
pub mod grounding;
pub mod json_compare;
pub mod json_stream;
pub mod json_text;
pub mod json_tree;
pub mod lint;
pub mod model;
pub mod ordered;
pub mod scaffold;
pub mod sim;
pub mod stats;
pub mod verify;

pub use error::{Error, Result};
