//! `find_user_id_by_name_zip` (read): names case-insensitive, the zip
//! code exact.

use super::super::model::RetailDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["first_name", "last_name", "zip"])?;
    let first = args.str("first_name")?.to_lowercase();
    let last = args.str("last_name")?.to_lowercase();
    let zip = args.str("zip")?;
    db.users
        .iter()
        .find(|(_, u)| {
            u.name.first_name.to_lowercase() == first
                && u.name.last_name.to_lowercase() == last
                && u.address.zip == zip
        })
        .map(|(id, _)| Output::Text(id.clone()))
        .ok_or_else(|| "User not found".to_string())
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "find_user_id_by_name_zip",
    "retail",
    "Finds a user's id by their first name, last name and zip code.",
    &[
        ParamSpec::new("first_name", ParamType::String, "The first name.", true),
        ParamSpec::new("last_name", ParamType::String, "The last name.", true),
        ParamSpec::new("zip", ParamType::String, "The zip code.", true),
    ],
    false,
);
