//! `list_all_product_types` (read): product names to ids, written with
//! sorted keys (a name held twice keeps its last product).

use std::collections::BTreeMap;

use super::super::model::RetailDb;
use crate::suite::ToolSpec;
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&[])?;
    let by_name: BTreeMap<&str, &str> = db
        .products
        .values()
        .map(|p| (p.name.as_str(), p.product_id.as_str()))
        .collect();
    Ok(Output::Text(crate::formats::write::to_python_json_line(
        &by_name,
    )))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "list_all_product_types",
    "retail",
    "Lists every product type with its product id.",
    &[],
    false,
);
