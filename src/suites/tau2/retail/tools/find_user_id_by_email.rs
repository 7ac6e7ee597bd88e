//! `find_user_id_by_email` (read): case-insensitive on the address.

use super::super::model::RetailDb;
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
