//! `get_item_details` (read): a variant found in any product.

use super::super::model::RetailDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["item_id"])?;
    let id = args.str("item_id")?;
    db.products
        .values()
        .find_map(|p| p.variants.get(id))
        .map(Output::model)
        .ok_or_else(|| "Item not found".to_string())
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "get_item_details",
    "retail",
    "Gives an item's details: its product, options, price and availability.",
    &[ParamSpec::new(
        "item_id",
        ParamType::String,
        "The item's id.",
        true,
    )],
    false,
);
