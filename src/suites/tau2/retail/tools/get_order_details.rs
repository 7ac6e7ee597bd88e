//! `get_order_details` (read).

use super::super::model::RetailDb;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["order_id"])?;
    Ok(Output::model(db.order(args.str("order_id")?)?))
}
