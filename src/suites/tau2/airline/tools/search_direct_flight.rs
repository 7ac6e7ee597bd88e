//! `search_direct_flight` (read): available flights between two airports
//! on a date.

use super::super::model::FlightDb;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["origin", "destination", "date"])?;
    let found = db.direct_flights(
        args.str("date")?,
        Some(args.str("origin")?),
        Some(args.str("destination")?),
        None,
    );
    Ok(Output::model(&found))
}
