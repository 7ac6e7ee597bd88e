//! `find_user_id_by_email` (read): case-insensitive on the address.

use super::super::model::RetailDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["email"])?;
    let email = args.str("email")?.to_lowercase();
    db.users
        .iter()
        .find(|(_, u)| u.email.to_lowercase() == email)
        .map(|(id, _)| Output::Text(id.clone()))
        .ok_or_else(|| "User not found".to_string())
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "find_user_id_by_email",
    "retail",
    "Finds a user's id by their email.",
    &[ParamSpec::new(
        "email",
        ParamType::String,
        "The email.",
        true,
    )],
    false,
);
