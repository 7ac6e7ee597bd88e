//! `send_certificate` (write): a certificate of the given amount added to
//! the user, under the first free id of tau2's three.

use super::super::model::{FlightDb, PaymentMethod};
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["user_id", "amount"])?;
    let user_id = args.str("user_id")?;
    let amount = args.int("amount")?;
    db.user(user_id)?;
    let user = db.users.get_mut(user_id).expect("the user was found");
    for number in [3221322, 3221323, 3221324] {
        let id = format!("certificate_{number}");
        if !user.payment_methods.contains_key(&id) {
            user.payment_methods.insert(
                id.clone(),
                PaymentMethod::Certificate {
                    id: id.clone(),
                    amount: amount as f64,
                },
            );
            return Ok(Output::Text(format!(
                "Certificate {id} added to user {user_id} with amount {amount}."
            )));
        }
    }
    Err("Too many certificates".to_string())
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec("send_certificate", "airline", "Adds a travel certificate of the given amount to a user's payment methods, as a goodwill gesture.", &[ParamSpec::new("user_id", ParamType::String, "The user's id.", true), ParamSpec::new("amount", ParamType::Integer, "The certificate's value.", true)], true);
