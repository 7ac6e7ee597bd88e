//! `get_user_details` (read).

use super::super::model::RetailDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["user_id"])?;
    Ok(Output::model(db.user(args.str("user_id")?)?))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "get_user_details",
    "retail",
    "Gives a user's profile: name, address, email, payment methods, orders.",
    &[ParamSpec::new(
        "user_id",
        ParamType::String,
        "The user's id.",
        true,
    )],
    false,
);
