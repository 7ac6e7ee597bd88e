//! `get_product_details` (read).

use super::super::model::RetailDb;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["product_id"])?;
    Ok(Output::model(db.product(args.str("product_id")?)?))
}
