//! `get_user_details` (read).

use super::super::model::FlightDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["user_id"])?;
    Ok(Output::model(db.user(args.str("user_id")?)?))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "get_user_details",
    "airline",
    "Gives a user's profile: name, address, payment methods, membership, reservations.",
    &[ParamSpec::new(
        "user_id",
        ParamType::String,
        "The user's id.",
        true,
    )],
    false,
);
