//! `send_certificate` (write): a certificate of the given amount added to
//! the user, under the first free id of tau2's three.

use super::super::model::{FlightDb, PaymentMethod};
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
