//! `update_reservation_passengers` (write): the same number of passengers,
//! with new details.

use super::super::model::{FlightDb, Passenger, PASSENGER_FIELDS};
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["reservation_id", "passengers"])?;
    let passengers: Vec<Passenger> = args.models("passengers")?;
    let id = args.str("reservation_id")?;
    db.reservation(id)?;
    let reservation = db
        .reservations
        .get_mut(id)
        .expect("the reservation was found");
    if passengers.len() != reservation.passengers.len() {
        return Err("Number of passengers does not match".to_string());
    }
    reservation.passengers = passengers;
    Ok(Output::model(reservation))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "update_reservation_passengers",
    "airline",
    "Replaces a reservation's passengers' details; their number cannot change.",
    &[
        ParamSpec::new(
            "reservation_id",
            ParamType::String,
            "The reservation's id.",
            true,
        ),
        ParamSpec {
            fields: PASSENGER_FIELDS,
            ..ParamSpec::new(
                "passengers",
                ParamType::Array(&ParamType::Object),
                "Every passenger after the change.",
                true,
            )
        },
    ],
    true,
);
