//! `modify_pending_order_address` (write): a new shipping address for an
//! order whose status starts as pending (item-modified orders included).

use super::super::model::RetailDb;
use super::address_args;
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
