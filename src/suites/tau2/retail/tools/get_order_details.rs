//! `get_order_details` (read).

use super::super::model::RetailDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["order_id"])?;
    Ok(Output::model(db.order(args.str("order_id")?)?))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "get_order_details",
    "retail",
    "Gives an order's details.",
    &[ParamSpec::new(
        "order_id",
        ParamType::String,
        "The order's id.",
        true,
    )],
    false,
);
