//! `get_flight_status` (read): the status word of a flight on a date.

use super::super::model::FlightDb;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["flight_number", "date"])?;
    let date = db.flight_date(args.str("flight_number")?, args.str("date")?)?;
    Ok(Output::Text(date.status().to_string()))
}
