//! `modify_user_address` (write): a user's default address.

use super::super::model::RetailDb;
use super::address_args;
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
