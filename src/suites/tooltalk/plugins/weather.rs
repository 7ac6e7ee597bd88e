//! Weather: today's weather, the next days' forecast and monthly averages
//! of a place. No login needed.
//!
//! Database `Weather`: `{location: {"%Y-%m-%d": {"date", "high", "low",
//! "conditions"}}}`, read relative to the conversation's date.
//! Database `HistoricWeather`: `{location: {month: {"min_temp", "max_temp",
//! "record_min_temp", "record_max_temp", "avg_rainfall", "snow_days"}}}`,
//! months by lower-case full name. Locations are lower-case keys; the
//! caller's text is lower-cased and trimmed before the lookup.

use std::sync::Arc;

use chrono::{Datelike, Days, NaiveDate};
use serde_json::{Map, Value};

use super::Tool;
use crate::sim::pyargs::{bind, lower, py_strip};
use crate::sim::pytime::{strptime_str, DATE};
use crate::sim::reply::Reply;
use crate::sim::table::{Record, Table};
use crate::sim::ToolCtx;
use crate::suite::catalog::{FieldSpec, ParamSpec, ParamType, SessionEffect, ToolSpec};

pub const DESCRIPTION: &str =
    "Look up the weather of a place: today, the coming days, or by month.";

const DAILY: &str = "Weather";
const HISTORIC: &str = "HistoricWeather";

/// How many days after today a forecast covers.
const FORECAST_DAYS: u64 = 3;

pub static TOOLS: &[&Tool] = &[&CURRENT_WEATHER, &FORECAST_WEATHER, &HISTORIC_WEATHER];

const LOCATION: ParamSpec = ParamSpec::new(
    "location",
    ParamType::String,
    "The city or place, e.g. \"London\"; case does not matter.",
    true,
);

const DAY_FIELDS: &[FieldSpec] = &[
    FieldSpec::new("date", "string", "The day, as %Y-%m-%d."),
    FieldSpec::new("high", "number", "The day's highest temperature."),
    FieldSpec::new("low", "number", "The day's lowest temperature."),
    FieldSpec::new(
        "conditions",
        "string",
        "A word or two on the sky, e.g. \"Sunny\".",
    ),
];

pub static CURRENT_WEATHER: Tool = Tool {
    spec: ToolSpec {
        name: "CurrentWeather",
        group: "Weather",
        description: "Tells today's weather at a place.",
        parameters: &[LOCATION],
        returns: &[FieldSpec {
            fields: DAY_FIELDS,
            ..FieldSpec::new("weather", "object", "Today's weather there.")
        }],
        is_action: false,
        requires_auth: false,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DAILY),
        matches: crate::suites::tooltalk::compare::default_matches,
    },
    run: current_weather,
};

fn current_weather(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Reply, String> {
    let args = bind("CurrentWeather", params, &["location"], &[])?;
    let days = location_record(ctx.own(), args.value("location"))?;
    let today = ctx.now.date();
    Ok(Reply::Field {
        key: "weather",
        item: Arc::clone(day(days, today)?),
    })
}

pub static FORECAST_WEATHER: Tool = Tool {
    spec: ToolSpec {
        name: "ForecastWeather",
        group: "Weather",
        description: "Tells the weather expected at a place on each of the next three days.",
        parameters: &[LOCATION],
        returns: &[FieldSpec {
            fields: DAY_FIELDS,
            ..FieldSpec::new(
                "forecast",
                "array",
                "Tomorrow's weather and that of the two days after, in date order.",
            )
        }],
        is_action: false,
        requires_auth: false,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DAILY),
        matches: crate::suites::tooltalk::compare::default_matches,
    },
    run: forecast_weather,
};

fn forecast_weather(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Reply, String> {
    let args = bind("ForecastWeather", params, &["location"], &[])?;
    let days = location_record(ctx.own(), args.value("location"))?;
    let today = ctx.now.date();
    let mut forecast = Vec::new();
    for ahead in 1..=FORECAST_DAYS {
        // Python's dates end with the year 9999.
        let date = today
            .checked_add_days(Days::new(ahead))
            .filter(|d| d.year() <= 9999)
            .ok_or_else(|| "date value out of range".to_string())?;
        forecast.push(Arc::clone(day(days, date)?));
    }
    Ok(Reply::Listed {
        key: "forecast",
        items: forecast,
    })
}

pub static HISTORIC_WEATHER: Tool = Tool {
    spec: ToolSpec {
        name: "HistoricWeather",
        group: "Weather",
        description: "Tells what the weather at a place is usually like in a given month.",
        parameters: &[
            LOCATION,
            ParamSpec::new(
                "month",
                ParamType::String,
                "The month, spelled out in full, e.g. \"September\".",
                true,
            ),
        ],
        returns: &[FieldSpec {
            fields: &[
                FieldSpec::new("min_temp", "number", "Typical lowest temperature, °F."),
                FieldSpec::new("max_temp", "number", "Typical highest temperature, °F."),
                FieldSpec::new(
                    "record_min_temp",
                    "number",
                    "Lowest temperature on record, °F.",
                ),
                FieldSpec::new(
                    "record_max_temp",
                    "number",
                    "Highest temperature on record, °F.",
                ),
                FieldSpec::new("avg_rainfall", "number", "Average rainfall, inches."),
                FieldSpec::new("snow_days", "number", "How many days it usually snows."),
            ],
            ..FieldSpec::new(
                "weather",
                "object",
                "The month's averages and records there.",
            )
        }],
        is_action: false,
        requires_auth: false,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(HISTORIC),
        matches: crate::suites::tooltalk::compare::default_matches,
    },
    run: historic_weather,
};

fn historic_weather(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Reply, String> {
    let args = bind("HistoricWeather", params, &["location", "month"], &[])?;
    let (location, months) = find_location(ctx.own(), args.value("location"))?;
    let month = lower(args.value("month"))?;
    let missing = || format!("Historic weather data for {location} missing for month {month}");
    let weather = months.get_shared(&month).ok_or_else(missing)?;
    Ok(Reply::Field {
        key: "weather",
        item: Arc::clone(weather),
    })
}

/// The record of a location: the caller's text lower-cased and trimmed, as
/// the reference does before looking it up; with the key it was found by.
fn find_location<'t>(table: &'t Table, location: &Value) -> Result<(String, &'t Record), String> {
    let location = py_strip(&lower(location)?).to_string();
    match table.get(&location) {
        Some(record) => Ok((location, record)),
        None => Err(format!("Location {location} not found in database")),
    }
}

fn location_record<'t>(table: &'t Table, location: &Value) -> Result<&'t Record, String> {
    find_location(table, location).map(|(_, record)| record)
}

/// The weather of `date` in a location's daily record. The reference keys
/// the record by parsed dates, so "2023-9-1" and "2023-09-01" name the same
/// day and the later entry wins; a missing day is Python's `KeyError` on a
/// `datetime.date`.
fn day(days: &Record, date: NaiveDate) -> Result<&Arc<Value>, String> {
    let found = days.as_object().and_then(|days| {
        days.iter_shared()
            .rev()
            .find(|(key, _)| strptime_str(key, DATE).is_ok_and(|d| d.date() == date))
            .map(|(_, value)| value)
    });
    found.ok_or_else(|| {
        format!(
            "datetime.date({}, {}, {})",
            date.year(),
            date.month(),
            date.day()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialogue::GoldCall;
    use crate::sim::pytime::{strptime_str, TIMESTAMP};
    use crate::sim::Databases;
    use crate::suite::similarity::ExactText;
    use crate::suites::tooltalk::plugins::testing::{self, call};
    use crate::suites::tooltalk::World;
    use serde_json::json;

    fn databases() -> Databases {
        let tables = [
            (
                "Account",
                json!({"ann": {"username": "ann", "session_token": "t"}}),
            ),
            (
                "Weather",
                json!({
                    "london": {
                        "2023-09-10": {"date": "2023-09-10", "high": 70, "low": 55.5, "conditions": "Rain"},
                        "2023-09-11": {"date": "2023-09-11", "high": 71, "low": 56, "conditions": "Cloudy"},
                        "2023-09-12": {"date": "2023-09-12", "high": 72, "low": 57, "conditions": "Sunny"},
                        "2023-9-12": {"date": "2023-9-12", "high": 0, "low": 0, "conditions": "Later entry wins"},
                        "2023-09-13": {"date": "2023-09-13", "high": 73, "low": 58, "conditions": "Sunny"},
                    },
                    "paris": {
                        "2023-09-10": {"date": "2023-09-10", "high": 80, "low": 60, "conditions": "Sunny"},
                        "9999-12-31": {"date": "9999-12-31", "high": 1, "low": 0, "conditions": "Last"},
                    },
                }),
            ),
            (
                "HistoricWeather",
                json!({"london": {"september": {"min_temp": 52, "max_temp": 66, "record_min_temp": 37,
                                                "record_max_temp": 90, "avg_rainfall": 1.9, "snow_days": 0}}}),
            ),
        ];
        testing::databases(tables)
    }

    fn world_at(now: &str) -> World {
        World::new(&databases(), strptime_str(now, TIMESTAMP).unwrap())
    }

    #[test]
    fn current_weather_reads_today_without_a_login() {
        let mut w = world_at("2023-09-10 23:59:59");
        let dbs = databases();
        let london = &dbs.get("Weather").unwrap()["london"];
        assert_eq!(
            call(&mut w, "CurrentWeather", json!({"location": " London\n"})).unwrap(),
            json!({"weather": london["2023-09-10"]})
        );
        let cases = [
            (
                json!({"location": "Atlantis"}),
                "Location atlantis not found in database",
            ),
            (
                json!({"location": 5}),
                "'int' object has no attribute 'lower'",
            ),
            (
                json!({"location": null}),
                "'NoneType' object has no attribute 'lower'",
            ),
            (
                json!({}),
                "CurrentWeather.call() missing 1 required positional argument: 'location'",
            ),
            (
                json!({"location": "london", "session_token": "t"}),
                "CurrentWeather.call() got an unexpected keyword argument 'session_token'",
            ),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "CurrentWeather", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
        let mut w = world_at("2023-09-01 08:00:00");
        assert_eq!(
            call(&mut w, "CurrentWeather", json!({"location": "london"})).unwrap_err(),
            "datetime.date(2023, 9, 1)"
        );
    }

    #[test]
    fn forecast_covers_the_next_three_days() {
        let mut w = world_at("2023-09-10 08:00:00");
        let dbs = databases();
        let london = &dbs.get("Weather").unwrap()["london"];
        assert_eq!(
            call(&mut w, "ForecastWeather", json!({"location": "LONDON"})).unwrap(),
            json!({"forecast": [london["2023-09-11"], london["2023-9-12"], london["2023-09-13"]]})
        );
        assert_eq!(
            call(&mut w, "ForecastWeather", json!({"location": "paris"})).unwrap_err(),
            "datetime.date(2023, 9, 11)"
        );
        let mut w = world_at("2023-09-11 08:00:00");
        assert_eq!(
            call(&mut w, "ForecastWeather", json!({"location": "london"})).unwrap_err(),
            "datetime.date(2023, 9, 14)"
        );
        let mut w = world_at("9999-12-30 08:00:00");
        assert_eq!(
            call(&mut w, "ForecastWeather", json!({"location": "london"})).unwrap_err(),
            "datetime.date(9999, 12, 31)"
        );
        // Python's dates stop at 9999-12-31.
        assert_eq!(
            call(&mut w, "ForecastWeather", json!({"location": "paris"})).unwrap_err(),
            "date value out of range"
        );
        assert_eq!(
            call(&mut w, "ForecastWeather", json!({"location": "nowhere"})).unwrap_err(),
            "Location nowhere not found in database"
        );
    }

    #[test]
    fn historic_weather_is_by_location_then_month() {
        let mut w = world_at("2023-09-10 08:00:00");
        let dbs = databases();
        let september = &dbs.get("HistoricWeather").unwrap()["london"]["september"];
        assert_eq!(
            call(
                &mut w,
                "HistoricWeather",
                json!({"location": "London ", "month": "SEPTEMBER"})
            )
            .unwrap(),
            json!({"weather": september})
        );
        let cases = [
            (
                json!({"location": "London", "month": "Sept"}),
                "Historic weather data for london missing for month sept",
            ),
            (
                json!({"location": "London", "month": 9}),
                "'int' object has no attribute 'lower'",
            ),
            // The location is checked before the month is looked at.
            (
                json!({"location": "paris", "month": 9}),
                "Location paris not found in database",
            ),
            (
                json!({"location": "London"}),
                "HistoricWeather.call() missing 1 required positional argument: 'month'",
            ),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "HistoricWeather", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
    }

    #[test]
    fn specs_and_comparators() {
        assert!(TOOLS
            .iter()
            .all(|t| !t.spec.is_action && !t.spec.requires_auth));
        assert_eq!(HISTORIC_WEATHER.spec.database, Some("HistoricWeather"));
        assert_eq!(CURRENT_WEATHER.spec.database, Some("Weather"));
        // Queries of the weather are compared whole, as the reference does.
        let call = |loc: &str, high: Value| -> GoldCall {
            serde_json::from_value(json!({
                "request": {"api_name": "CurrentWeather", "parameters": {"location": loc}},
                "response": {"weather": {"high": high}}, "exception": null
            }))
            .unwrap()
        };
        let t = &ExactText;
        assert!((CURRENT_WEATHER.spec.matches)(
            crate::suite::catalog::CallRef::from(&call("London", json!(70))),
            &call("London", json!(70)),
            t
        ));
        assert!(!(CURRENT_WEATHER.spec.matches)(
            crate::suite::catalog::CallRef::from(&call("london", json!(70))),
            &call("London", json!(70)),
            t
        ));
        assert!(!(CURRENT_WEATHER.spec.matches)(
            crate::suite::catalog::CallRef::from(&call("London", json!(71))),
            &call("London", json!(70)),
            t
        ));
    }
}
