//! tau2-bench's airline and retail domains (sierra-research/tau2-bench):
//! their databases as tau2's models hold them, every tool with tau2's
//! checks, exception texts and output strings, the state hash tau2 grades
//! with, and the replay of each task's gold actions (`verify`).

pub mod airline;
pub mod catalog;
pub mod common;
pub mod diff;
pub mod domain;
pub mod eval;
pub mod hash;
pub mod ids;
pub mod lint;
pub mod reach;
pub mod report;
pub mod retail;
pub mod suite;
pub mod tasks;
pub mod verify;

pub use suite::Tau2;

use common::{Args, Output, Raised};

/// How tau2's decorators mark a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Reads the database.
    Read,
    /// Changes the database (the only calls tau2 replays when grading).
    Write,
    /// Touches no database (`calculate`, `transfer_to_human_agents`).
    Generic,
}

/// One tool of a domain whose database is `D`.
pub struct Tool<D: 'static> {
    pub name: &'static str,
    pub kind: ToolKind,
    pub run: fn(&mut D, &Args) -> Result<Output, Raised>,
    /// What it takes, for the catalog (`tools`, lint, prompts).
    pub spec: &'static crate::suite::ToolSpec,
}
