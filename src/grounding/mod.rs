//! Grounding: could the assistant have known this argument value at this
//! point of the dialogue?
//!
//! An [`Evidence`] collects, in dialogue order, everything the assistant has
//! seen: what it is told up front (location, time, username), the user's
//! and its own earlier words, and the requests and results of earlier tool
//! calls. [`Evidence::ground`] then decides whether a value is supported by
//! it, after normalising both sides: case, whitespace and punctuation,
//! numbers in digits or words, clock times ("2pm" = "14:00" = 14:00:00),
//! dates ("September 12th", "9/12", "tomorrow", "Friday") relative to the
//! conversation's now, and times shifted by a mentioned duration ("30
//! minutes before"). Lists are grounded element by element.
//!
//! The judgement leans towards "grounded" whenever a reading supports the
//! value: a linter that cries wolf gets switched off. The linter
//! (`unreachable-argument`), the evaluator and the generator share it.

pub mod normalize;
pub mod when;

use std::collections::HashSet;
use std::fmt;

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime};
use serde_json::Value;

use normalize::{compact, is_stopword, normalized, stem, words};
use when::{Clock, Mention};

/// Where a piece of evidence came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// What the assistant is told before the dialogue (e.g. `location`).
    Context(String),
    /// An utterance; `turn` is its position in the dialogue.
    User {
        turn: usize,
    },
    Assistant {
        turn: usize,
    },
    /// An earlier call's arguments or result.
    Request {
        turn: usize,
        api: String,
    },
    Result {
        turn: usize,
        api: String,
    },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Context(what) => write!(f, "{what}"),
            Source::User { turn } => write!(f, "user, turn {turn}"),
            Source::Assistant { turn } => write!(f, "assistant, turn {turn}"),
            Source::Request { turn, api } => write!(f, "arguments of {api}, turn {turn}"),
            Source::Result { turn, api } => write!(f, "result of {api}, turn {turn}"),
        }
    }
}

/// How a value is to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// Words: found when the text holds them (in order, run together, or
    /// all of their content words).
    Text,
    /// Must appear as written (up to case and punctuation): ids, emails,
    /// phone numbers, passwords, tokens.
    Exact,
    /// `%Y-%m-%d %H:%M:%S`
    Timestamp,
    /// `%Y-%m-%d`
    Date,
    /// `%H:%M:%S`
    Time,
    /// `%m-%d`
    MonthDay,
    Number,
}

/// The verdict on one value.
#[derive(Debug, Clone, PartialEq)]
pub enum Grounding {
    Grounded,
    /// Nothing before the call supports `value` (for a list: this element).
    Unreachable {
        value: String,
    },
}

impl Grounding {
    pub fn is_grounded(&self) -> bool {
        matches!(self, Grounding::Grounded)
    }
}

/// The text nearest to an unreachable value, to show the maintainer.
#[derive(Debug, Clone, PartialEq)]
pub struct Closest {
    pub source: Source,
    pub text: String,
}

#[derive(Debug, Clone)]
struct Piece {
    source: Source,
    text: String,
    /// `when::mentions` of the text, kept for showing the nearest one.
    mentions: Vec<when::Found>,
}

/// Everything the assistant has seen so far.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    now: Option<NaiveDateTime>,
    pieces: Vec<Piece>,
    /// Normalised words of every piece, pieces separated by " | ".
    words: String,
    /// Every piece run together, pieces separated by "|".
    compact: String,
    tokens: HashSet<String>,
    numbers: Vec<f64>,
    dates: HashSet<NaiveDate>,
    month_days: HashSet<(u32, u32)>,
    days_of_month: HashSet<u32>,
    months: HashSet<u32>,
    relative: Vec<(i64, i64)>,
    calendar_months: HashSet<i32>,
    weekdays: HashSet<chrono::Weekday>,
    clocks: HashSet<Clock>,
    bare_hours: HashSet<u32>,
    day_parts: Vec<(u32, u32)>,
    durations: HashSet<i64>,
}

impl Evidence {
    /// Evidence for a dialogue whose "now" is `now` (None when unknown, as
    /// in API-Bank until `GetToday` answers).
    pub fn new(now: Option<NaiveDateTime>) -> Evidence {
        let mut e = Evidence {
            now,
            words: String::from(" "),
            ..Evidence::default()
        };
        if let Some(now) = now {
            e.months.insert(now.month());
        }
        e
    }

    pub fn now(&self) -> Option<NaiveDateTime> {
        self.now
    }

    /// Learn "now" late (API-Bank's `GetToday`).
    pub fn set_today(&mut self, date: NaiveDate) {
        if self.now.is_none() {
            self.now = date.and_hms_opt(0, 0, 0);
            self.months.insert(date.month());
        }
    }

    /// Add a text the assistant has seen.
    pub fn add_text(&mut self, source: Source, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        let lower = text.to_lowercase();
        let norm = normalized(&lower);
        self.words.push_str(&norm);
        self.words.push_str(" | ");
        self.compact.push_str(&compact(&lower));
        self.compact.push('|');
        for w in norm.split(' ') {
            self.tokens.insert(stem(w).to_owned());
        }
        self.numbers.extend(normalize::numbers(&lower));
        let mentions = when::mentions(&lower);
        for found in &mentions {
            self.learn(&found.mention);
        }
        self.pieces.push(Piece {
            source,
            text: text.to_owned(),
            mentions,
        });
    }

    /// Add a JSON value the assistant has seen (arguments, a result): every
    /// string and number in it.
    pub fn add_value(&mut self, source: Source, value: &Value) {
        let mut leaves = Vec::new();
        collect_leaves(value, &mut leaves);
        if !leaves.is_empty() {
            self.add_text(source, &leaves.join(" ; "));
        }
    }

    fn learn(&mut self, mention: &Mention) {
        match *mention {
            Mention::Date(d) => {
                self.dates.insert(d);
                self.months.insert(d.month());
            }
            Mention::MonthDay(m, d) => {
                self.month_days.insert((m, d));
                self.months.insert(m);
            }
            Mention::DayOfMonth(d) => {
                self.days_of_month.insert(d);
            }
            Mention::Month(m) => {
                self.months.insert(m);
            }
            Mention::Relative(a, b) => self.relative.push((a, b)),
            Mention::CalendarMonth(k) => {
                self.calendar_months.insert(k);
            }
            Mention::Weekday(w) => {
                self.weekdays.insert(w);
            }
            Mention::Clock(c) => {
                self.clocks.insert(c);
            }
            Mention::BareHour(h) => {
                self.bare_hours.insert(h);
            }
            Mention::DayPart(a, b) => self.day_parts.push((a, b)),
            Mention::Duration(s) => {
                self.durations.insert(s);
            }
        }
    }

    /// Is `value` supported by the evidence, read as `kind`? Lists are
    /// judged element by element; objects, booleans and nulls are not
    /// judged (their shape comes from the tool's documentation).
    pub fn ground(&self, value: &Value, kind: ValueKind) -> Grounding {
        match value {
            Value::Array(items) => {
                for item in items {
                    let verdict = self.ground(item, kind);
                    if !verdict.is_grounded() {
                        return verdict;
                    }
                }
                Grounding::Grounded
            }
            Value::String(s) => self.verdict(s, self.ground_str(s, kind)),
            Value::Number(n) => {
                let text = n.to_string();
                let ok = n.as_f64().is_some_and(|x| self.has_number(x));
                self.verdict(&text, ok)
            }
            _ => Grounding::Grounded,
        }
    }

    fn verdict(&self, value: &str, ok: bool) -> Grounding {
        if ok {
            Grounding::Grounded
        } else {
            Grounding::Unreachable {
                value: value.to_owned(),
            }
        }
    }

    fn ground_str(&self, s: &str, kind: ValueKind) -> bool {
        let s = s.trim();
        if s.is_empty() {
            return true;
        }
        match kind {
            ValueKind::Timestamp => match when::parse_timestamp(s) {
                Some(t) => self.has_datetime(t),
                None => self.has_text(s, false),
            },
            ValueKind::Date => match when::parse_date(s) {
                Some(d) => self.has_date(d),
                None => self.has_text(s, false),
            },
            ValueKind::Time => match when::parse_clock(s) {
                Some(c) => self.has_clock(c),
                None => self.has_text(s, false),
            },
            ValueKind::MonthDay => match when::parse_month_day(s) {
                Some((m, d)) => self.has_month_day(m, d),
                None => self.has_text(s, false),
            },
            ValueKind::Number => match s.parse::<f64>() {
                Ok(x) => self.has_number(x),
                Err(_) => self.has_text(s, true),
            },
            ValueKind::Exact => self.has_text(s, false),
            ValueKind::Text => {
                if let Ok(x) = s.parse::<f64>() {
                    return self.has_number(x) || self.has_text(s, false);
                }
                if let Some(m) = when::month_number(&s.to_lowercase()).filter(|_| s.len() >= 3) {
                    if normalized(s).split(' ').count() == 1 {
                        return self.months.contains(&m) || self.has_text(s, false);
                    }
                }
                self.has_text(s, true)
            }
        }
    }

    /// Words found in order, or run together; with `loose`, also when
    /// every content word appears somewhere.
    fn has_text(&self, s: &str, loose: bool) -> bool {
        let norm = normalized(s);
        if norm.is_empty() {
            return true;
        }
        let padded = format!(" {norm} ");
        if self.words.contains(&padded) {
            return true;
        }
        let packed = compact(s);
        if packed.chars().count() >= 6 && self.compact.contains(&packed) {
            return true;
        }
        if !loose {
            return false;
        }
        let mut content = norm.split(' ').filter(|w| !is_stopword(w)).peekable();
        if content.peek().is_none() {
            return true;
        }
        content.all(|w| {
            self.tokens.contains(stem(w))
                || self.has_word_stem(w)
                || w.parse::<f64>().is_ok_and(|x| self.has_number(x))
                || normalize::number_word(w).is_some_and(|n| self.has_number(n as f64))
        })
    }

    /// A long word whose beginning some evidence word shares ("nausea",
    /// "nauseous"): at least five letters and most of the shorter word.
    fn has_word_stem(&self, w: &str) -> bool {
        let len = w.chars().count();
        if len < 5 || w.bytes().any(|b| b.is_ascii_digit()) {
            return false;
        }
        self.tokens.iter().any(|t| {
            let shared = t.chars().zip(w.chars()).take_while(|(a, b)| a == b).count();
            let shorter = len.min(t.chars().count());
            shared >= 5 && shared * 5 >= shorter * 4
        })
    }

    fn has_number(&self, x: f64) -> bool {
        // 0 and 1 are what a model writes for "none" and "a".
        x == 0.0 || x == 1.0 || self.numbers.iter().any(|&n| (n - x).abs() < 1e-9)
    }

    fn has_datetime(&self, t: NaiveDateTime) -> bool {
        let clock = when::clock_of(t.time());
        if self.has_date(t.date()) && self.has_clock(clock) {
            return true;
        }
        // Past midnight belongs to the evening before ("6:30 PM to 12:30 AM").
        if clock > 0
            && clock < 6 * 3600
            && self.clocks.contains(&clock)
            && t.date().pred_opt().is_some_and(|d| self.has_date(d))
        {
            return true;
        }
        // A moment shifted across midnight by a duration ("an hour before
        // the 00:30 flight").
        self.durations.iter().any(|&d| {
            [t + Duration::seconds(d), t - Duration::seconds(d)]
                .iter()
                .any(|u| self.has_date(u.date()) && self.has_plain_clock(when::clock_of(u.time())))
        })
    }

    /// A date the text names or implies, or one a mentioned number of
    /// days away from such a date ("three nights from the 15th").
    pub fn has_date(&self, d: NaiveDate) -> bool {
        self.has_plain_date(d)
            || self.durations.iter().any(|&s| {
                s % 86400 == 0
                    && s > 0
                    && [d - Duration::days(s / 86400), d + Duration::days(s / 86400)]
                        .iter()
                        .any(|&other| self.has_plain_date(other))
            })
    }

    /// A date the text names, implies ("tomorrow", "Friday") or that is
    /// today.
    fn has_plain_date(&self, d: NaiveDate) -> bool {
        if self.dates.contains(&d)
            || self.month_days.contains(&(d.month(), d.day()))
            || self.days_of_month.contains(&d.day())
        {
            return true;
        }
        let Some(now) = self.now else {
            // Without a "now", relative words cannot be resolved: give them
            // the benefit of the doubt.
            return !self.relative.is_empty() || !self.weekdays.is_empty();
        };
        let offset = (d - now.date()).num_days();
        if offset == 0 {
            return true;
        }
        if self
            .relative
            .iter()
            .any(|&(a, b)| a <= offset && offset <= b)
        {
            return true;
        }
        let months_apart = (d.year() - now.year()) * 12 + d.month() as i32 - now.month() as i32;
        if self.calendar_months.contains(&months_apart) {
            return true;
        }
        self.weekdays.contains(&d.weekday()) && (-7..=14).contains(&offset)
    }

    fn has_month_day(&self, month: u32, day: u32) -> bool {
        if self.month_days.contains(&(month, day))
            || self
                .dates
                .iter()
                .any(|&d| when::is_month_day(d, month, day))
        {
            return true;
        }
        match self.now {
            Some(now) => {
                NaiveDate::from_ymd_opt(now.year(), month, day).is_some_and(|d| self.has_date(d))
            }
            None => !self.relative.is_empty() || self.days_of_month.contains(&day),
        }
    }

    /// A clock time the text names, or one a mentioned duration away from it.
    fn has_clock(&self, c: Clock) -> bool {
        if self.has_plain_clock(c) {
            return true;
        }
        const DAY: i64 = 86400;
        self.durations.iter().any(|&d| {
            [
                (c as i64 + d).rem_euclid(DAY),
                (c as i64 - d).rem_euclid(DAY),
            ]
            .iter()
            .any(|&other| self.has_plain_clock(other as Clock))
        })
    }

    fn has_plain_clock(&self, c: Clock) -> bool {
        // Midnight and the last second bound a whole day ("what do I have
        // on Friday" -> 00:00:00 to 23:59:59).
        if c == 0 || c == 86399 || self.clocks.contains(&c) {
            return true;
        }
        let (hour, rest) = (c / 3600, c % 3600);
        if let Some(now) = self.now {
            // Now, and the hours around it ("is anything on right now?").
            let current = when::clock_of(now.time());
            if current == c || (rest == 0 && (c as i64 - current as i64).abs() <= 3600) {
                return true;
            }
        }
        if rest == 0 || rest == 3599 {
            if self.bare_hours.contains(&hour)
                || (hour >= 12 && self.bare_hours.contains(&(hour - 12)))
            {
                return true;
            }
            if self.day_parts.iter().any(|&(a, b)| a <= hour && hour <= b) {
                return true;
            }
        }
        false
    }

    /// The evidence text nearest to an unreachable value, for a help line.
    pub fn closest(&self, value: &str, kind: ValueKind) -> Option<Closest> {
        match kind {
            ValueKind::Timestamp | ValueKind::Date | ValueKind::Time | ValueKind::MonthDay => {
                self.closest_mention(value)
            }
            _ => None,
        }
        .or_else(|| self.closest_words(value))
    }

    fn closest_mention(&self, value: &str) -> Option<Closest> {
        let lower = value.to_lowercase();
        let target = when::mentions(&lower);
        let wants_clock = target
            .iter()
            .any(|f| matches!(f.mention, Mention::Clock(_)))
            || when::parse_timestamp(value).is_some();
        let wants_date = target
            .iter()
            .any(|f| matches!(f.mention, Mention::Date(_) | Mention::MonthDay(..)));
        let (clock, date) = match when::parse_timestamp(value) {
            Some(t) => {
                let date_ok = self.has_date(t.date());
                (
                    (date_ok).then(|| when::clock_of(t.time())),
                    (!date_ok).then_some(t.date()),
                )
            }
            None => (when::parse_clock(value), when::parse_date(value)),
        };
        let mut best: Option<(i64, &Piece, &when::Found)> = None;
        for piece in &self.pieces {
            for found in &piece.mentions {
                let distance = match (&found.mention, clock, date) {
                    (Mention::Clock(c), Some(want), _) if wants_clock => {
                        (*c as i64 - want as i64).abs()
                    }
                    (Mention::Date(d), _, Some(want)) if wants_date || date.is_some() => {
                        (*d - want).num_days().abs() * 86400
                    }
                    (Mention::MonthDay(m, d), _, Some(want)) => {
                        let guess = NaiveDate::from_ymd_opt(want.year(), *m, *d);
                        guess.map_or(i64::MAX, |g| (g - want).num_days().abs() * 86400)
                    }
                    _ => continue,
                };
                if best.is_none_or(|(b, ..)| distance < b) {
                    best = Some((distance, piece, found));
                }
            }
        }
        best.map(|(_, piece, found)| Closest {
            source: piece.source.clone(),
            text: piece
                .text
                .get(found.start..found.end)
                .map_or_else(
                    || piece.text.to_lowercase()[found.start..found.end].to_owned(),
                    str::to_owned,
                )
                .trim()
                .to_owned(),
        })
    }

    /// The run of words most like `value` (edit distance on the
    /// normalised forms).
    fn closest_words(&self, value: &str) -> Option<Closest> {
        let target = normalized(value);
        let want = target.split(' ').filter(|w| !w.is_empty()).count().max(1);
        let mut best: Option<(f64, &Piece, usize, usize)> = None;
        for piece in &self.pieces {
            let ws = words(&piece.text);
            for len in [want.saturating_sub(1).max(1), want, want + 1] {
                if len > ws.len() {
                    continue;
                }
                for window in 0..=ws.len() - len {
                    let span = &piece.text[ws[window].start..ws[window + len - 1].end];
                    let score = strsim::normalized_levenshtein(&normalized(span), &target);
                    if best.is_none_or(|(b, ..)| score > b) {
                        best = Some((score, piece, ws[window].start, ws[window + len - 1].end));
                    }
                }
            }
        }
        best.filter(|(score, ..)| *score >= 0.5)
            .map(|(_, piece, start, end)| Closest {
                source: piece.source.clone(),
                text: piece.text[start..end].to_owned(),
            })
    }
}

fn collect_leaves(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(items) => items.iter().for_each(|v| collect_leaves(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_leaves(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
