//! `search_onestop_flight` (read): pairs of available flights through one
//! stop. As upstream, a next-day connection's date is written
//! `2024-05-{day + 1}` (no zero padding, May only).

use super::super::model::FlightDb;
use crate::suite::ToolSpec;
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["origin", "destination", "date"])?;
    let date = args.str("date")?;
    let destination = args.str("destination")?;
    let mut pairs = Vec::new();
    for mut first in db.direct_flights(date, Some(args.str("origin")?), None, None) {
        first.date = Some(date.to_string());
        let second_date = if first.scheduled_arrival_time_est.contains("+1") {
            let day: i64 = date
                .get(date.len().saturating_sub(2)..)
                .and_then(|d| d.parse().ok())
                .ok_or_else(|| format!("invalid literal for int() with base 10: {date:?}"))?;
            format!("2024-05-{}", day + 1)
        } else {
            date.to_string()
        };
        for mut second in db.direct_flights(
            &second_date,
            Some(&first.destination),
            Some(destination),
            Some(&first.scheduled_arrival_time_est),
        ) {
            second.date = Some(second_date.clone());
            pairs.push((first.clone(), second));
        }
    }
    Ok(Output::model(&pairs))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "search_onestop_flight",
    "airline",
    "Finds connections with one stop between two airports on a date.",
    super::search_direct_flight::SEARCH_PARAMS,
    false,
);
