//! `get_product_details` (read).

use super::super::model::RetailDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["product_id"])?;
    Ok(Output::model(db.product(args.str("product_id")?)?))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "get_product_details",
    "retail",
    "Gives a product's details with every variant.",
    &[ParamSpec::new(
        "product_id",
        ParamType::String,
        "The product's id.",
        true,
    )],
    false,
);
