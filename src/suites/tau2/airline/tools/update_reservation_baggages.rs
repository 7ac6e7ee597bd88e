//! `update_reservation_baggages` (write): new bag counts, paying for the
//! added non-free bags.

use super::super::model::FlightDb;
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&[
        "reservation_id",
        "total_baggages",
        "nonfree_baggages",
        "payment_id",
    ])?;
    let id = args.str("reservation_id")?;
    let total_baggages = args.int("total_baggages")?;
    let nonfree_baggages = args.int("nonfree_baggages")?;
    let payment_id = args.str("payment_id")?;
    let reservation = db.reservation(id)?;
    let user_id = reservation.user_id.clone();
    db.user(&user_id)?;
    let price = 50 * (nonfree_baggages - reservation.nonfree_baggages).max(0);
    let payment = db.pay_for_update(&user_id, payment_id, price)?;
    let reservation = db
        .reservations
        .get_mut(id)
        .expect("the reservation was found");
    reservation.payment_history.extend(payment);
    reservation.total_baggages = total_baggages;
    reservation.nonfree_baggages = nonfree_baggages;
    Ok(Output::model(reservation))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "update_reservation_baggages",
    "airline",
    "Changes a reservation's checked bags, charging the payment method for the extra paid bags.",
    &[
        ParamSpec::new(
            "reservation_id",
            ParamType::String,
            "The reservation's id.",
            true,
        ),
        ParamSpec::new(
            "total_baggages",
            ParamType::Integer,
            "Checked bags in total, after the change.",
            true,
        ),
        ParamSpec::new(
            "nonfree_baggages",
            ParamType::Integer,
            "Paid bags, after the change.",
            true,
        ),
        ParamSpec::new(
            "payment_id",
            ParamType::String,
            "The payment method charged.",
            true,
        ),
    ],
    true,
);
