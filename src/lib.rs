//! talkforge: a toolchain for conversational tool-use benchmarks in the style
//! of ToolTalk and API-Bank. See DESIGN.md in the shared folder for the
//! layout and the command-line contract.
//!
//! Dependencies point down: `cli` -> the commands (`check`, `verify`,
//! `fill`, `lint`, `eval`, `gen`, `stats`, `scaffold`) -> `suite` (the
//! seam: a suite's file formats, the registry) -> `sim`, `dialogue`,
//! `formats` -> `json`. The families (`suites`) sit beside the commands,
//! above the seam: only the command line's entry point names them, through
//! `suites::registry()`; every command resolves suites through the
//! registry it is given (`cli::run_with`).

pub mod card;
pub mod check;
pub mod cli;
pub mod dataset;
pub mod dialogue;
pub mod errata;
pub mod error;
pub mod eval;
pub mod fill;
pub mod formats;
pub mod gen;
pub mod grounding;
pub mod json;
pub mod lint;
pub mod llm;
pub mod policy;
pub mod report;
pub mod run;
pub mod scaffold;
pub mod schema;
pub mod sim;
pub mod stats;
pub mod style;
pub mod suite;
pub mod suites;
#[doc(hidden)]
pub mod test_support;
pub mod verify;
pub mod words;

pub use error::{Error, Result};
