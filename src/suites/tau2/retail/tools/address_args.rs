//! The six address arguments two retail tools take.

use super::super::model::Address;
use crate::suites::tau2::common::{Args, Raised};

pub const NAMES: [&str; 6] = ["address1", "address2", "city", "state", "country", "zip"];

pub fn read(args: &Args) -> Result<Address, Raised> {
    Ok(Address {
        address1: args.str("address1")?.to_string(),
        address2: args.str("address2")?.to_string(),
        city: args.str("city")?.to_string(),
        country: args.str("country")?.to_string(),
        state: args.str("state")?.to_string(),
        zip: args.str("zip")?.to_string(),
    })
}
