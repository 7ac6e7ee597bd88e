//! The airline database as tau2's pydantic models hold it: fields in the
//! models' order (that is the order a dumped result shows), the optional
//! reservation `status` present as null, gift-card and certificate
//! amounts as floats.

use crate::suite::{ParamSpec, ParamType};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlightDb {
    pub flights: IndexMap<String, Flight>,
    pub users: IndexMap<String, User>,
    pub reservations: IndexMap<String, Reservation>,
}

/// Seats or prices by cabin class.
pub type ByCabin = IndexMap<String, i64>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flight {
    pub flight_number: String,
    pub origin: String,
    pub destination: String,
    pub scheduled_departure_time_est: String,
    pub scheduled_arrival_time_est: String,
    pub dates: IndexMap<String, FlightDate>,
}

/// A flight's state on one date, told apart by its `status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status")]
pub enum FlightDate {
    #[serde(rename = "available")]
    Available {
        available_seats: ByCabin,
        prices: ByCabin,
    },
    #[serde(rename = "landed")]
    Landed {
        actual_departure_time_est: String,
        actual_arrival_time_est: String,
    },
    #[serde(rename = "cancelled")]
    Cancelled {},
    #[serde(rename = "delayed")]
    Delayed {
        estimated_departure_time_est: String,
        estimated_arrival_time_est: String,
    },
    #[serde(rename = "flying")]
    Flying {
        actual_departure_time_est: String,
        estimated_arrival_time_est: String,
    },
    #[serde(rename = "on time")]
    OnTime {
        estimated_departure_time_est: String,
        estimated_arrival_time_est: String,
    },
}

impl FlightDate {
    pub fn status(&self) -> &'static str {
        match self {
            FlightDate::Available { .. } => "available",
            FlightDate::Landed { .. } => "landed",
            FlightDate::Cancelled {} => "cancelled",
            FlightDate::Delayed { .. } => "delayed",
            FlightDate::Flying { .. } => "flying",
            FlightDate::OnTime { .. } => "on time",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Name {
    pub first_name: String,
    pub last_name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Address {
    pub address1: String,
    #[serde(default)]
    pub address2: Option<String>,
    pub city: String,
    pub country: String,
    pub state: String,
    pub zip: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source")]
pub enum PaymentMethod {
    #[serde(rename = "credit_card")]
    CreditCard {
        id: String,
        brand: String,
        last_four: String,
    },
    #[serde(rename = "gift_card")]
    GiftCard { id: String, amount: f64 },
    #[serde(rename = "certificate")]
    Certificate { id: String, amount: f64 },
}

/// A passenger's fields as the tools that take passengers state them.
pub const PASSENGER_FIELDS: &[ParamSpec] = &[
    ParamSpec::new(
        "first_name",
        ParamType::String,
        "The passenger's first name.",
        true,
    ),
    ParamSpec::new(
        "last_name",
        ParamType::String,
        "The passenger's last name.",
        true,
    ),
    ParamSpec::new("dob", ParamType::String, "Date of birth, YYYY-MM-DD.", true),
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Passenger {
    pub first_name: String,
    pub last_name: String,
    pub dob: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    pub user_id: String,
    pub name: Name,
    pub address: Address,
    pub email: String,
    pub dob: String,
    pub payment_methods: IndexMap<String, PaymentMethod>,
    pub saved_passengers: Vec<Passenger>,
    pub membership: String,
    pub reservations: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReservationFlight {
    pub flight_number: String,
    pub origin: String,
    pub destination: String,
    pub date: String,
    pub price: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Payment {
    pub payment_id: String,
    pub amount: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reservation {
    pub reservation_id: String,
    pub user_id: String,
    pub origin: String,
    pub destination: String,
    pub flight_type: String,
    pub cabin: String,
    pub flights: Vec<ReservationFlight>,
    pub passengers: Vec<Passenger>,
    pub payment_history: Vec<Payment>,
    pub created_at: String,
    pub total_baggages: i64,
    pub nonfree_baggages: i64,
    pub insurance: String,
    #[serde(default)]
    pub status: Option<String>,
}

/// A flight on one date as the searches show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DirectFlight {
    pub flight_number: String,
    pub origin: String,
    pub destination: String,
    pub status: &'static str,
    pub scheduled_departure_time_est: String,
    pub scheduled_arrival_time_est: String,
    pub date: Option<String>,
    pub available_seats: ByCabin,
    pub prices: ByCabin,
}

/// A flight and date named in a booking or a change.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FlightInfo {
    pub flight_number: String,
    pub date: String,
}

impl FlightDb {
    pub fn user(&self, user_id: &str) -> Result<&User, String> {
        self.users
            .get(user_id)
            .ok_or_else(|| format!("User {user_id} not found"))
    }

    pub fn reservation(&self, id: &str) -> Result<&Reservation, String> {
        self.reservations
            .get(id)
            .ok_or_else(|| format!("Reservation {id} not found"))
    }

    pub fn flight(&self, flight_number: &str) -> Result<&Flight, String> {
        self.flights
            .get(flight_number)
            .ok_or_else(|| format!("Flight {flight_number} not found"))
    }

    pub fn flight_date(&self, flight_number: &str, date: &str) -> Result<&FlightDate, String> {
        self.flight(flight_number)?
            .dates
            .get(date)
            .ok_or_else(|| format!("Flight {flight_number} not found on date {date}"))
    }

    /// Available flights on `date`, as tau2's direct search lists them.
    pub fn direct_flights(
        &self,
        date: &str,
        origin: Option<&str>,
        destination: Option<&str>,
        leave_after: Option<&str>,
    ) -> Vec<DirectFlight> {
        self.flights
            .values()
            .filter(|f| origin.is_none_or(|o| f.origin == o))
            .filter(|f| destination.is_none_or(|d| f.destination == d))
            .filter(|f| leave_after.is_none_or(|t| f.scheduled_departure_time_est.as_str() >= t))
            .filter_map(|f| match f.dates.get(date) {
                Some(FlightDate::Available {
                    available_seats,
                    prices,
                }) => Some(DirectFlight {
                    flight_number: f.flight_number.clone(),
                    origin: f.origin.clone(),
                    destination: f.destination.clone(),
                    status: "available",
                    scheduled_departure_time_est: f.scheduled_departure_time_est.clone(),
                    scheduled_arrival_time_est: f.scheduled_arrival_time_est.clone(),
                    date: None,
                    available_seats: available_seats.clone(),
                    prices: prices.clone(),
                }),
                _ => None,
            })
            .collect()
    }

    /// tau2's `_payment_for_update`: check the method, take a gift card's
    /// share, and the payment row to add (none for a zero total).
    pub fn pay_for_update(
        &mut self,
        user_id: &str,
        payment_id: &str,
        total: i64,
    ) -> Result<Option<Payment>, String> {
        let user = self
            .users
            .get_mut(user_id)
            .ok_or_else(|| format!("User {user_id} not found"))?;
        let method = user
            .payment_methods
            .get_mut(payment_id)
            .ok_or("Payment method not found")?;
        match method {
            PaymentMethod::Certificate { .. } => {
                return Err("Certificate cannot be used to update reservation".to_string())
            }
            PaymentMethod::GiftCard { amount, .. } => {
                if *amount < total as f64 {
                    return Err("Gift card balance is not enough".to_string());
                }
                *amount -= total as f64;
            }
            PaymentMethod::CreditCard { .. } => {}
        }
        Ok((total != 0).then(|| Payment {
            payment_id: payment_id.to_string(),
            amount: total,
        }))
    }
}
