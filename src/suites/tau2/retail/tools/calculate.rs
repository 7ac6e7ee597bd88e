//! `calculate` (generic): an arithmetic expression, rounded to cents.

use super::super::model::RetailDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{calculate, Args, Output, Raised};

pub fn run(_db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["expression"])?;
    calculate(args.str("expression")?).map(Output::Text)
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec("calculate", "retail", "Evaluates an arithmetic expression (numbers, + - * / and parentheses) and gives the result rounded to two decimals.", &[ParamSpec::new("expression", ParamType::String, "The expression, e.g. 2 * (3 + 4).", true)], false);
