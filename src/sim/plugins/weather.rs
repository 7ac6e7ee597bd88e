//! The weather plugin: not written yet.

use crate::sim::catalog::ToolSpec;

pub const DESCRIPTION: &str = "";

pub static TOOLS: &[&ToolSpec] = &[];
