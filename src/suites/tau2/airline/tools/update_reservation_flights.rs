//! `update_reservation_flights` (write): a new cabin and flights, paying
//! the difference. As upstream, no seat is taken or given back.

use super::super::model::{FlightDate, FlightDb, FlightInfo, ReservationFlight};
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["reservation_id", "cabin", "flights", "payment_id"])?;
    let cabin = args.str("cabin")?;
    let flights: Vec<FlightInfo> = args.models("flights")?;
    let payment_id = args.str("payment_id")?;
    let id = args.str("reservation_id")?;
    let reservation = db.reservation(id)?;
    db.user(&reservation.user_id)?;
    let passengers = reservation.passengers.len() as i64;
    let mut total = 0;
    let mut kept = Vec::new();
    for info in &flights {
        let same = reservation.flights.iter().find(|f| {
            f.flight_number == info.flight_number
                && f.date == info.date
                && cabin == reservation.cabin
        });
        if let Some(same) = same {
            total += same.price * passengers;
            kept.push(same.clone());
            continue;
        }
        let flight = db.flight(&info.flight_number)?;
        let FlightDate::Available {
            available_seats,
            prices,
        } = db.flight_date(&info.flight_number, &info.date)?
        else {
            return Err(format!(
                "Flight {} not available on date {}",
                info.flight_number, info.date
            ));
        };
        let key_error = || format!("'{cabin}'");
        if *available_seats.get(cabin).ok_or_else(key_error)? < passengers {
            return Err(format!("Not enough seats on flight {}", info.flight_number));
        }
        let price = *prices.get(cabin).ok_or_else(key_error)?;
        total += price * passengers;
        kept.push(ReservationFlight {
            flight_number: info.flight_number.clone(),
            origin: flight.origin.clone(),
            destination: flight.destination.clone(),
            date: info.date.clone(),
            price,
        });
    }
    total -= reservation.flights.iter().map(|f| f.price).sum::<i64>() * passengers;
    let user_id = reservation.user_id.clone();
    let payment = db.pay_for_update(&user_id, payment_id, total)?;
    let reservation = db
        .reservations
        .get_mut(id)
        .expect("the reservation was found");
    reservation.payment_history.extend(payment);
    reservation.flights = kept;
    reservation.cabin = cabin.to_string();
    Ok(Output::model(reservation))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec("update_reservation_flights", "airline", "Changes a reservation's cabin or flights (all of them, changed or not), charging or refunding the difference.", &[ParamSpec::new("reservation_id", ParamType::String, "The reservation's id.", true), ParamSpec { enum_values: &["business", "economy", "basic_economy"], ..ParamSpec::new("cabin", ParamType::String, "The cabin class.", true) }, ParamSpec { fields: &[ParamSpec::new("flight_number", ParamType::String, "The flight number, e.g. HAT001.", true), ParamSpec::new("date", ParamType::String, "The date of the flight, YYYY-MM-DD.", true)], ..ParamSpec::new("flights", ParamType::Array(&ParamType::Object), "Every flight of the reservation after the change.", true) }, ParamSpec::new("payment_id", ParamType::String, "The payment method charged or refunded.", true)], true);
