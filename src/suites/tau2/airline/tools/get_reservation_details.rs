//! `get_reservation_details` (read).

use super::super::model::FlightDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["reservation_id"])?;
    Ok(Output::model(db.reservation(args.str("reservation_id")?)?))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "get_reservation_details",
    "airline",
    "Gives a reservation's details.",
    &[ParamSpec::new(
        "reservation_id",
        ParamType::String,
        "The reservation's id.",
        true,
    )],
    false,
);
