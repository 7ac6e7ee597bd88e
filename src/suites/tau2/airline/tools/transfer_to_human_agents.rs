//! `transfer_to_human_agents` (generic).

use super::super::model::FlightDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(_db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["summary"])?;
    args.str("summary")?;
    Ok(Output::Text("Transfer successful".to_string()))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec("transfer_to_human_agents", "airline", "Hands the conversation to a human agent, with a summary of the user's issue; only when the policy allows it or the request is out of scope.", &[ParamSpec { free_text: true, ..ParamSpec::new("summary", ParamType::String, "What the user needs.", true) }], false);
