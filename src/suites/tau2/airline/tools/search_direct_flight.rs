//! `search_direct_flight` (read): available flights between two airports
//! on a date.

use super::super::model::FlightDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
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

/// What a flight search takes: both searches take the same.
pub const SEARCH_PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "origin",
        ParamType::String,
        "IATA code of the origin airport.",
        true,
    ),
    ParamSpec::new(
        "destination",
        ParamType::String,
        "IATA code of the destination airport.",
        true,
    ),
    ParamSpec::new("date", ParamType::String, "The date, YYYY-MM-DD.", true),
];

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "search_direct_flight",
    "airline",
    "Finds direct flights between two airports on a date.",
    SEARCH_PARAMS,
    false,
);
