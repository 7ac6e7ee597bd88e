//! `modify_pending_order_address` (write): a new shipping address for an
//! order whose status starts as pending (item-modified orders included).

use super::super::model::RetailDb;
use super::address_args;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    let mut names = vec!["order_id"];
    names.extend(address_args::NAMES);
    args.only(&names)?;
    let id = args.str("order_id")?;
    let address = address_args::read(args)?;
    if !db.order(id)?.status.contains("pending") {
        return Err("Non-pending order cannot be modified".to_string());
    }
    let order = db.orders.get_mut(id).expect("the order was found");
    order.address = address;
    Ok(Output::model(order))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "modify_pending_order_address",
    "retail",
    "Changes the shipping address of a pending order.",
    &[
        ParamSpec::new("order_id", ParamType::String, "The order's id.", true),
        ParamSpec::new(
            "address1",
            ParamType::String,
            "The first line of the address.",
            true,
        ),
        ParamSpec::new(
            "address2",
            ParamType::String,
            "The second line of the address (may be empty).",
            true,
        ),
        ParamSpec::new("city", ParamType::String, "The city.", true),
        ParamSpec::new("state", ParamType::String, "The state.", true),
        ParamSpec::new("country", ParamType::String, "The country.", true),
        ParamSpec::new("zip", ParamType::String, "The zip code.", true),
    ],
    true,
);
