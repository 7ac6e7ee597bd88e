//! `find_user_id_by_name_zip` (read): names case-insensitive, the zip
//! code exact.

use super::super::model::RetailDb;
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
