//! `list_all_airports` (read): the fixed list of the airline's airports.

use serde_json::json;

use super::super::model::FlightDb;
use crate::suite::ToolSpec;
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

/// (IATA code, city), in the order tau2 lists them.
const AIRPORTS: [(&str, &str); 20] = [
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
];

pub fn run(_db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&[])?;
    Ok(Output::Json(
        AIRPORTS
            .iter()
            .map(|(iata, city)| json!({"iata": iata, "city": city}))
            .collect(),
    ))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "list_all_airports",
    "airline",
    "Lists every airport with its IATA code and city.",
    &[],
    false,
);
