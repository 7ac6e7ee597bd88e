//! `get_user_details` (read).

use super::super::model::RetailDb;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["user_id"])?;
    Ok(Output::model(db.user(args.str("user_id")?)?))
}
