//! What the agent of a tau2 task could have learnt before a gold action:
//! what the simulated user is told, the policy, the outputs of the gold
//! actions before it, and what the read tools hand out for the ids and
//! names the user gives (the user's record, their orders or
//! reservations, the catalog of products, the airports and the flights
//! between the airports named). lint's `unreachable-argument` asks it
//! whether an argument value could have come from somewhere.
//!
//! A value is found when it is written there as it is (case aside), or
//! another way (a date as "May 24", an amount with a dollar sign, an
//! order number without its `#`), or computed from numbers found (the
//! sum or difference of two, a multiple of one by a passenger count).

use std::collections::{HashSet, VecDeque};

use serde_json::{Map, Value};

use super::domain::Db;

/// What every task of a file can learn the same way: the policy and what
/// the tools that take no id list (products and their details, airports).
pub struct Shared {
    policy: String,
    listed: Leaves,
    airports: Vec<(String, String)>,
}

impl Shared {
    pub fn new(db: &Db, policy: &str) -> Shared {
        let mut listed = Leaves::default();
        let mut airports = Vec::new();
        let mut scratch = db.clone();
        match db {
            Db::Retail(r) => {
                if let Some(output) = read(&mut scratch, "list_all_product_types", &[]) {
                    listed.add(&output, &mut Vec::new());
                }
                for id in r.products.keys() {
                    if let Some(output) =
                        read(&mut scratch, "get_product_details", &[("product_id", id)])
                    {
                        listed.add(&output, &mut Vec::new());
                    }
                }
            }
            Db::Airline(_) => {
                if let Some(Value::Array(items)) = read(&mut scratch, "list_all_airports", &[]) {
                    for item in &items {
                        let code = item.get("iata").and_then(Value::as_str).unwrap_or_default();
                        let city = item.get("city").and_then(Value::as_str).unwrap_or_default();
                        airports.push((code.to_string(), city.to_lowercase()));
                    }
                    listed.add(&Value::Array(items), &mut Vec::new());
                }
            }
        }
        Shared {
            policy: policy.to_lowercase(),
            listed,
            airports,
        }
    }
}

/// Leaf values of tool outputs: strings lowercased, numbers in cents.
#[derive(Default, Clone)]
struct Leaves {
    strings: HashSet<String>,
    cents: HashSet<i64>,
}

impl Leaves {
    /// Add every leaf of `value`; strings seen for the first time are
    /// pushed onto `new` (ids to look up in turn).
    fn add(&mut self, value: &Value, new: &mut Vec<String>) {
        match value {
            Value::String(s) => {
                if let Some(cents) = cents_of_text(s) {
                    self.cents.insert(cents);
                }
                if self.strings.insert(s.to_lowercase()) {
                    new.push(s.clone());
                }
            }
            Value::Number(n) => {
                if let Some(x) = n.as_f64() {
                    self.cents.insert(cents(x));
                }
            }
            Value::Array(items) => items.iter().for_each(|v| self.add(v, new)),
            Value::Object(map) => {
                for (key, v) in map {
                    // Variants are keyed by their item id.
                    if self.strings.insert(key.to_lowercase()) {
                        new.push(key.clone());
                    }
                    self.add(v, new);
                }
            }
            Value::Bool(_) | Value::Null => {}
        }
    }
}

/// What one task's agent knows, growing as the gold actions run.
pub struct Knowledge<'s> {
    shared: &'s Shared,
    /// What the user is told, lowercased.
    told: String,
    told_cents: HashSet<i64>,
    /// The looked-up records' leaves and the earlier outputs'.
    leaves: Leaves,
    /// The earlier outputs' text, lowercased.
    outputs: String,
    /// Numbers of what the user is told and of the earlier outputs, for
    /// values computed from them.
    operands: Vec<i64>,
}

impl<'s> Knowledge<'s> {
    /// What the agent can learn from the start: `told` and the lookups of
    /// the ids and users it names, in `scratch` (a copy of the initial
    /// database that only reads run on).
    pub fn new(shared: &'s Shared, scratch: &mut Db, told: &str) -> Knowledge<'s> {
        let lower = told.to_lowercase();
        let mut leaves = shared.listed.clone();
        let mut queue: VecDeque<String> = tokens(told).map(str::to_string).collect();
        // Users the told text names by name and zip code, or by email.
        match &*scratch {
            Db::Retail(r) => {
                for user in r.users.values() {
                    let named = lower.contains(&user.name.first_name.to_lowercase())
                        && lower.contains(&user.name.last_name.to_lowercase())
                        && lower.contains(&user.address.zip);
                    if named || lower.contains(&user.email.to_lowercase()) {
                        queue.push_back(user.user_id.clone());
                    }
                }
            }
            Db::Airline(a) => {
                for user in a.users.values() {
                    if lower.contains(&user.email.to_lowercase()) {
                        queue.push_back(user.user_id.clone());
                    }
                }
            }
        }
        let mut tried: HashSet<String> = HashSet::new();
        while let Some(id) = queue.pop_front() {
            for candidate in id_spellings(&id) {
                if !tried.insert(candidate.clone()) {
                    continue;
                }
                for (tool, argument) in lookups(scratch) {
                    if let Some(output) = read(scratch, tool, &[(argument, &candidate)]) {
                        let mut new = Vec::new();
                        leaves.add(&output, &mut new);
                        queue.extend(new);
                    }
                }
            }
        }
        if let Db::Airline(a) = &*scratch {
            let known = |code: &str| {
                leaves.strings.contains(&code.to_lowercase())
                    || told
                        .split(|c: char| !c.is_ascii_alphabetic())
                        .any(|w| w == code)
            };
            let mut airports: HashSet<&str> = HashSet::new();
            for (code, city) in &shared.airports {
                if known(code) || lower.contains(city.as_str()) {
                    airports.insert(code);
                }
            }
            // What the direct and one-stop searches between them list.
            let mut found = Vec::new();
            for f in a.flights.values() {
                let from = airports.contains(f.origin.as_str());
                let to = airports.contains(f.destination.as_str());
                let connects = || {
                    a.flights.values().any(|g| {
                        (from
                            && g.origin == f.destination
                            && airports.contains(g.destination.as_str()))
                            || (to
                                && g.destination == f.origin
                                && airports.contains(g.origin.as_str()))
                    })
                };
                if (from && to) || connects() {
                    found.push(f);
                }
            }
            for f in found {
                leaves.strings.insert(f.flight_number.to_lowercase());
                for date in f.dates.values() {
                    let dump = serde_json::to_value(date).unwrap_or_default();
                    leaves.add(&dump, &mut Vec::new());
                }
            }
        }
        let told_cents: HashSet<i64> = numbers(told).collect();
        Knowledge {
            shared,
            operands: told_cents.iter().copied().collect(),
            told: lower,
            told_cents,
            leaves,
            outputs: String::new(),
        }
    }

    /// Take in a gold action's output (the text the agent is handed).
    pub fn learn(&mut self, output: &str) {
        match serde_json::from_str::<Value>(output) {
            Ok(value) => self.leaves.add(&value, &mut Vec::new()),
            Err(_) => {
                self.leaves.strings.insert(output.to_lowercase());
            }
        }
        self.operands.extend(numbers(output));
        self.outputs.push('\n');
        self.outputs.push_str(&output.to_lowercase());
    }

    /// Whether the agent could have written `value` (a leaf of an
    /// argument; `choices`, the parameter's own enumeration).
    pub fn explains(&self, value: &Value, choices: &[&str]) -> bool {
        match value {
            Value::String(s) => self.explains_text(s, choices),
            Value::Number(n) => n.as_f64().is_some_and(|x| self.explains_number(cents(x))),
            Value::Bool(_) | Value::Null => true,
            Value::Array(_) | Value::Object(_) => true,
        }
    }

    fn explains_text(&self, s: &str, choices: &[&str]) -> bool {
        let lower = s.trim().to_lowercase();
        if lower.is_empty() || choices.iter().any(|c| c.eq_ignore_ascii_case(s)) {
            return true;
        }
        if self.leaves.strings.contains(&lower) {
            return true;
        }
        if let Ok(date) = chrono::NaiveDate::parse_from_str(&lower, "%Y-%m-%d") {
            if self.next_to_known_date(date) {
                return true;
            }
        } else if looks_like_expression(&lower) {
            return numbers(&lower).all(|c| self.explains_number(c) || c.abs() < 1000);
        }
        written_ways(&lower).iter().any(|w| {
            self.told.contains(w.as_str())
                || self.outputs.contains(w.as_str())
                || self.shared.policy.contains(w.as_str())
        })
    }

    /// A day before or after a date handed out, when the user speaks of
    /// the day before or after.
    fn next_to_known_date(&self, date: chrono::NaiveDate) -> bool {
        let shifted = ["day after", "next day", "following day", "day before"]
            .iter()
            .any(|w| self.told.contains(w));
        shifted
            && [date.pred_opt(), date.succ_opt()]
                .into_iter()
                .flatten()
                .any(|d| {
                    self.leaves
                        .strings
                        .contains(&d.format("%Y-%m-%d").to_string())
                })
    }

    fn explains_number(&self, c: i64) -> bool {
        if self.told_cents.contains(&c) || self.leaves.cents.contains(&c) {
            return true;
        }
        // The sum or difference of two numbers told or handed out, or one
        // of them times a small count (passengers, bags).
        let ops = &self.operands;
        let set: HashSet<i64> = ops.iter().copied().collect();
        ops.iter().any(|&a| {
            set.contains(&(c - a)) || set.contains(&(a - c)) || (2..=9).any(|k| a * k == c)
        })
    }
}

/// The read tools that take one id, by domain: (tool, argument).
fn lookups(db: &Db) -> &'static [(&'static str, &'static str)] {
    match db {
        Db::Retail(_) => &[
            ("get_user_details", "user_id"),
            ("get_order_details", "order_id"),
            ("find_user_id_by_email", "email"),
        ],
        Db::Airline(_) => &[
            ("get_user_details", "user_id"),
            ("get_reservation_details", "reservation_id"),
        ],
    }
}

/// A read's output as JSON (a plain string as a JSON string), None when
/// it raised.
fn read(db: &mut Db, tool: &str, arguments: &[(&str, &str)]) -> Option<Value> {
    let map: Map<String, Value> = arguments
        .iter()
        .map(|(k, v)| ((*k).to_string(), Value::String((*v).to_string())))
        .collect();
    let output = db.call(tool, &map).ok()?.agent_text();
    Some(serde_json::from_str(&output).unwrap_or(Value::String(output)))
}

/// The ways the user may say an id: as written, and an order number
/// with the `#W` the database writes before it.
fn id_spellings(id: &str) -> Vec<String> {
    let mut out = vec![id.to_string()];
    if id.len() >= 6 && id.bytes().all(|b| b.is_ascii_digit()) {
        out.push(format!("#W{id}"));
    }
    if let Some(rest) = id
        .strip_prefix('W')
        .filter(|r| r.bytes().all(|b| b.is_ascii_digit()))
    {
        out.push(format!("#W{rest}"));
    }
    out
}

/// The words of a text that may be ids (letters, digits, `_`, `#`, `@`,
/// `.` and `-` inside them), trailing punctuation left off.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "_#@.-".contains(c)))
        .map(|w| w.trim_end_matches(['.', '-']))
        .filter(|w| w.len() >= 3)
}

/// The other ways a value may be written: as it is, without a leading
/// `#` or `#W`, and a date as people say it.
fn written_ways(lower: &str) -> Vec<String> {
    let mut ways = vec![lower.to_string()];
    if let Some(bare) = lower.strip_prefix('#') {
        ways.push(bare.to_string());
        if let Some(digits) = bare.strip_prefix('w') {
            ways.push(digits.to_string());
        }
    }
    if let Ok(date) = chrono::NaiveDate::parse_from_str(lower, "%Y-%m-%d") {
        use chrono::Datelike;
        let month = date.format("%B").to_string().to_lowercase();
        let short = date.format("%b").to_string().to_lowercase();
        let (m, d) = (date.month(), date.day());
        for name in [&month, &short] {
            ways.push(format!("{name} {d}"));
            ways.push(format!("{d} {name}"));
            ways.push(format!("{d}{} of {name}", ordinal(d)));
        }
        ways.push(format!("{m}/{d}"));
        ways.push(format!("{m:02}/{d:02}"));
    }
    ways
}

fn ordinal(d: u32) -> &'static str {
    match (d % 10, d % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

fn cents(x: f64) -> i64 {
    (x * 100.0).round() as i64
}

/// A text that is one number ("348", "$1,131", "54.04"), in cents.
fn cents_of_text(s: &str) -> Option<i64> {
    let s = s.trim().trim_start_matches('$').replace(',', "");
    if s.is_empty()
        || !s
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
    {
        return None;
    }
    s.parse::<f64>().ok().map(cents)
}

/// Every number written in a text ("$1,131", "54.04", "3"), in cents.
fn numbers(text: &str) -> impl Iterator<Item = i64> + '_ {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .map(|w| w.trim_matches(['.', ',']).replace(',', ""))
        .filter(|w| !w.is_empty() && w.bytes().any(|b| b.is_ascii_digit()))
        .filter_map(|w| w.parse::<f64>().ok())
        .map(cents)
}

/// An arithmetic expression (`calculate`'s argument).
fn looks_like_expression(s: &str) -> bool {
    s.bytes().any(|b| b"+-*/".contains(&b))
        && s.bytes()
            .all(|b| b.is_ascii_digit() || b" .+-*/()".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_order_numbers_are_found_as_people_write_them() {
        assert!(written_ways("2024-05-24").contains(&"may 24".to_string()));
        assert!(written_ways("2024-05-01").contains(&"1st of may".to_string()));
        assert!(written_ways("#w2378156").contains(&"2378156".to_string()));
        assert_eq!(cents_of_text("$1,131"), Some(113100));
        assert_eq!(
            numbers("card has $1131 left, 54.04 due").collect::<Vec<_>>(),
            [113100, 5404]
        );
        assert!(looks_like_expression("2 * ((350 - 122) + (499 - 127))"));
    }
}
