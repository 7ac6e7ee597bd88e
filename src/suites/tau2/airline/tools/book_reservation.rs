//! `book_reservation` (write): a new reservation paid in full; seats are
//! taken from each flight, gift cards drawn down and certificates used up.

use super::super::model::{
    FlightDate, FlightDb, FlightInfo, Passenger, Payment, PaymentMethod, Reservation,
    ReservationFlight, PASSENGER_FIELDS,
};
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
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

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "book_reservation",
    "airline",
    "Books a reservation for a user on the given flights, charging the given payment methods.",
    &[
        ParamSpec::new(
            "user_id",
            ParamType::String,
            "The user who books, e.g. sara_doe_496.",
            true,
        ),
        ParamSpec::new(
            "origin",
            ParamType::String,
            "IATA code of the origin airport.",
            true,
        ),
        ParamSpec::new(
            "destination",
            ParamType::String,
            "IATA code of the destination airport.",
            true,
        ),
        ParamSpec {
            enum_values: &["round_trip", "one_way"],
            ..ParamSpec::new(
                "flight_type",
                ParamType::String,
                "One way or round trip.",
                true,
            )
        },
        ParamSpec {
            enum_values: &["business", "economy", "basic_economy"],
            ..ParamSpec::new("cabin", ParamType::String, "The cabin class.", true)
        },
        ParamSpec {
            fields: &[
                ParamSpec::new(
                    "flight_number",
                    ParamType::String,
                    "The flight number, e.g. HAT001.",
                    true,
                ),
                ParamSpec::new(
                    "date",
                    ParamType::String,
                    "The date of the flight, YYYY-MM-DD.",
                    true,
                ),
            ],
            ..ParamSpec::new(
                "flights",
                ParamType::Array(&ParamType::Object),
                "The flights, each a flight number and a date.",
                true,
            )
        },
        ParamSpec {
            fields: PASSENGER_FIELDS,
            ..ParamSpec::new(
                "passengers",
                ParamType::Array(&ParamType::Object),
                "The passengers' names and dates of birth.",
                true,
            )
        },
        ParamSpec {
            fields: &[
                ParamSpec::new(
                    "payment_id",
                    ParamType::String,
                    "A payment method of the user.",
                    true,
                ),
                ParamSpec::new(
                    "amount",
                    ParamType::Number,
                    "The amount charged to it.",
                    true,
                ),
            ],
            ..ParamSpec::new(
                "payment_methods",
                ParamType::Array(&ParamType::Object),
                "The payment methods and the amount each pays.",
                true,
            )
        },
        ParamSpec::new(
            "total_baggages",
            ParamType::Integer,
            "Checked bags in total.",
            true,
        ),
        ParamSpec::new(
            "nonfree_baggages",
            ParamType::Integer,
            "Checked bags that are paid for.",
            true,
        ),
        ParamSpec {
            enum_values: &["yes", "no"],
            ..ParamSpec::new(
                "insurance",
                ParamType::String,
                "Whether travel insurance is bought.",
                true,
            )
        },
    ],
    true,
);
