//! `modify_user_address` (write): a user's default address.

use super::super::model::RetailDb;
use super::address_args;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    let mut names = vec!["user_id"];
    names.extend(address_args::NAMES);
    args.only(&names)?;
    let id = args.str("user_id")?;
    let address = address_args::read(args)?;
    db.user(id)?;
    let user = db.users.get_mut(id).expect("the user was found");
    user.address = address;
    Ok(Output::model(user))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "modify_user_address",
    "retail",
    "Changes a user's default address.",
    &[
        ParamSpec::new("user_id", ParamType::String, "The user's id.", true),
        ParamSpec::new(
            "address1",
            ParamType::String,
            "The first line of the address.",
            true,
        ),
        ParamSpec::new(
            "address2",
            ParamType::String,
            "The second line of the address (may be empty).",
            true,
        ),
        ParamSpec::new("city", ParamType::String, "The city.", true),
        ParamSpec::new("state", ParamType::String, "The state.", true),
        ParamSpec::new("country", ParamType::String, "The country.", true),
        ParamSpec::new("zip", ParamType::String, "The zip code.", true),
    ],
    true,
);
