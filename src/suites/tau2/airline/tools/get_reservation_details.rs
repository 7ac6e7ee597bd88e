//! `get_reservation_details` (read).

use super::super::model::FlightDb;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["reservation_id"])?;
    Ok(Output::model(db.reservation(args.str("reservation_id")?)?))
}
