//! `get_flight_status` (read): the status word of a flight on a date.

use super::super::model::FlightDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["flight_number", "date"])?;
    let date = db.flight_date(args.str("flight_number")?, args.str("date")?)?;
    Ok(Output::Text(date.status().to_string()))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "get_flight_status",
    "airline",
    "Gives the status of a flight on a date.",
    &[
        ParamSpec::new(
            "flight_number",
            ParamType::String,
            "The flight number.",
            true,
        ),
        ParamSpec::new("date", ParamType::String, "The date, YYYY-MM-DD.", true),
    ],
    false,
);
