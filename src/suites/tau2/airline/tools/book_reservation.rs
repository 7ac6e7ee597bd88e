//! `book_reservation` (write): a new reservation paid in full; seats are
//! taken from each flight, gift cards drawn down and certificates used up.

use super::super::model::{
    FlightDate, FlightDb, FlightInfo, Passenger, Payment, PaymentMethod, Reservation,
    ReservationFlight,
};
use crate::suites::tau2::common::{Args, Output, Raised};

/// The ids tau2 hands new reservations, in order.
const NEW_IDS: [&str; 3] = ["HATHAT", "HATHAU", "HATHAV"];
/// tau2's fixed clock.
const NOW: &str = "2024-05-15T15:00:00";

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&[
        "user_id",
        "origin",
        "destination",
        "flight_type",
        "cabin",
        "flights",
        "passengers",
        "payment_methods",
        "total_baggages",
        "nonfree_baggages",
        "insurance",
    ])?;
    let user_id = args.str("user_id")?;
    let cabin = args.str("cabin")?.to_string();
    let flights: Vec<FlightInfo> = args.models("flights")?;
    let passengers: Vec<Passenger> = args.models("passengers")?;
    let payments: Vec<Payment> = args.models("payment_methods")?;
    let nonfree_baggages = args.int("nonfree_baggages")?;
    let insurance = args.str("insurance")?.to_string();
    let user = db.user(user_id)?;
    let reservation_id = NEW_IDS
        .into_iter()
        .find(|id| !db.reservations.contains_key(*id))
        .ok_or("Too many reservations")?;
    let mut reserved = Vec::new();
    let mut total = 0;
    for info in &flights {
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
        if seats(available_seats, &cabin)? < passengers.len() as i64 {
            return Err(format!("Not enough seats on flight {}", info.flight_number));
        }
        let price = seats(prices, &cabin)?;
        reserved.push(ReservationFlight {
            flight_number: info.flight_number.clone(),
            origin: flight.origin.clone(),
            destination: flight.destination.clone(),
            date: info.date.clone(),
            price,
        });
        total += price * passengers.len() as i64;
    }
    if insurance == "yes" {
        total += 30 * passengers.len() as i64;
    }
    total += 50 * nonfree_baggages;
    for payment in &payments {
        let method = user
            .payment_methods
            .get(&payment.payment_id)
            .ok_or_else(|| format!("Payment method {} not found", payment.payment_id))?;
        if let PaymentMethod::GiftCard { amount, .. } | PaymentMethod::Certificate { amount, .. } =
            method
        {
            if *amount < payment.amount as f64 {
                return Err(format!(
                    "Not enough balance in payment method {}",
                    payment.payment_id
                ));
            }
        }
    }
    let paid: i64 = payments.iter().map(|p| p.amount).sum();
    if paid != total {
        return Err(format!(
            "Payment amount does not add up, total price is {total}, but paid {paid}"
        ));
    }
    let user = db.users.get_mut(user_id).expect("the user was found");
    for payment in &payments {
        match user.payment_methods.get_mut(&payment.payment_id) {
            Some(PaymentMethod::GiftCard { amount, .. }) => *amount -= payment.amount as f64,
            Some(PaymentMethod::Certificate { .. }) => {
                user.payment_methods.shift_remove(&payment.payment_id);
            }
            _ => {}
        }
    }
    user.reservations.push(reservation_id.to_string());
    for info in &flights {
        if let Some(FlightDate::Available {
            available_seats, ..
        }) = db
            .flights
            .get_mut(&info.flight_number)
            .and_then(|f| f.dates.get_mut(&info.date))
        {
            if let Some(n) = available_seats.get_mut(&cabin) {
                *n -= passengers.len() as i64;
            }
        }
    }
    let reservation = Reservation {
        reservation_id: reservation_id.to_string(),
        user_id: user_id.to_string(),
        origin: args.str("origin")?.to_string(),
        destination: args.str("destination")?.to_string(),
        flight_type: args.str("flight_type")?.to_string(),
        cabin,
        flights: reserved,
        passengers,
        payment_history: payments,
        created_at: NOW.to_string(),
        total_baggages: args.int("total_baggages")?,
        nonfree_baggages,
        insurance,
        status: None,
    };
    let output = Output::model(&reservation);
    db.reservations
        .insert(reservation_id.to_string(), reservation);
    Ok(output)
}

/// A cabin's entry (Python raises KeyError, whose text is the quoted key).
fn seats(by_cabin: &indexmap::IndexMap<String, i64>, cabin: &str) -> Result<i64, Raised> {
    by_cabin
        .get(cabin)
        .copied()
        .ok_or_else(|| format!("'{cabin}'"))
}
