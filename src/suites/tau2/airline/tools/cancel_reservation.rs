//! `cancel_reservation` (write): a refund row for every payment row and
//! the status `cancelled`. As upstream, a second cancellation adds refunds
//! again (of the refunds too), and no seat is given back.

use super::super::model::{FlightDb, Payment};
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["reservation_id"])?;
    let id = args.str("reservation_id")?;
    db.reservation(id)?;
    let reservation = db
        .reservations
        .get_mut(id)
        .expect("the reservation was found");
    let refunds: Vec<Payment> = reservation
        .payment_history
        .iter()
        .map(|p| Payment {
            payment_id: p.payment_id.clone(),
            amount: -p.amount,
        })
        .collect();
    reservation.payment_history.extend(refunds);
    reservation.status = Some("cancelled".to_string());
    Ok(Output::model(reservation))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "cancel_reservation",
    "airline",
    "Cancels a whole reservation and refunds its payments.",
    &[ParamSpec::new(
        "reservation_id",
        ParamType::String,
        "The reservation's id, e.g. ZFA04Y.",
        true,
    )],
    true,
);
