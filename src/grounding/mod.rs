//! Grounding: could the assistant have known this argument value at this
//! point of the dialogue?
//!
//! An [`Evidence`] collects, in dialogue order, everything the assistant has
//! seen: what it is told up front (location, time, username), what was
//! said before, and the requests and results of earlier tool calls (which
//! words count is the caller's choice: the linter leaves out the
//! assistant's own words until the user has answered them).
//! [`Evidence::ground`] then decides whether a value is supported by it,
//! after normalising both sides: case, whitespace and punctuation, numbers
//! in digits or words, clock times ("2pm" = "14:00" = "two pm" = 14:00:00,
//! "half past two", "0730"), dates ("September 12th", "March twenty-first",
//! "9/12") and times and dates shifted by a mentioned duration ("30
//! minutes before", "two and a half hours later", "the day after").
//! Lists are grounded element by element; a caller that wants every leaf
//! of a structured value judged on its own walks it
//! ([`crate::json::leaves`]) and reads each leaf by its
//! [`ValueKind::of_shape`] when nothing else says how.
//!
//! Relative dates ("tomorrow", "next Friday", "the 12th", "next week") are
//! resolved against the anchor date (the conversation's timestamp, a
//! `GetToday` answer or "today is 2023-03-17" said in the dialogue) to the
//! one or two days they can mean; without an anchor only dates stated in
//! full count.
//!
//! The judgement leans towards "grounded" whenever a reading supports the
//! value: a linter that cries wolf gets switched off.

pub mod normalize;
pub mod when;

use rustc_hash::FxHashSet;
use std::borrow::Cow;
use std::cell::{Ref, RefCell};
use std::fmt;
use std::ops::Range;

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime};

use crate::json::tree::{Json, Object};

use normalize::{compact, is_stopword, normalized, stem, words};
use when::{Clock, Mention, Qualifier};

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

impl ValueKind {
    /// How to read a leaf nothing describes (a member of an object the
    /// catalog does not detail), by its shape: a timestamp, date or clock
    /// time written as tools write them, a number, or else words. None
    /// for booleans and nulls, which are not judged.
    pub fn of_shape(value: &Json<'_>) -> Option<ValueKind> {
        match value {
            Json::Number(_) => Some(ValueKind::Number),
            Json::String(s) => {
                let s = s.trim();
                Some(if when::parse_timestamp(s).is_some() {
                    ValueKind::Timestamp
                } else if when::parse_date(s).is_some() {
                    ValueKind::Date
                } else if when::parse_clock(s).is_some() {
                    ValueKind::Time
                } else {
                    ValueKind::Text
                })
            }
            _ => None,
        }
    }
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
    /// Byte range of the text in `Evidence::texts`.
    start: usize,
    end: usize,
    /// Byte range of its lower-case form in `Evidence::lowers`.
    lower: Range<usize>,
    /// Range of its words in `Evidence::spans`.
    spans: Range<usize>,
    /// Range of its dates and times in `Evidence::mentions`, when they
    /// were read.
    mentions: Option<Range<usize>>,
}

/// A text read ahead of the dialogue ([`Reading::read_all`]): its lower-case
/// form, words and date mentions, so that a caller can decide up front
/// which texts need their dates read (only those before the last value
/// judged as a date) and hand them to the evidence in dialogue order
/// ([`Evidence::add_reading`]) without copying them.
#[derive(Debug, Clone, Default)]
pub struct Reading<'a> {
    text: Cow<'a, str>,
    /// The text in lower case, when that differs from it.
    lower: Option<String>,
    /// Byte ranges of the words of the lower-case text.
    words: Vec<(usize, usize)>,
    mentions: Vec<when::Found>,
    /// Whether its dates and times were read (`mentions` holds them).
    dated: bool,
}

impl<'a> Reading<'a> {
    /// Read these texts, in one batch; what they say about dates and
    /// times only for the first `dates_upto` (the rest have none: the
    /// caller knows no value read as a date or time comes after them).
    pub fn read_all(texts: Vec<Cow<'a, str>>, dates_upto: usize) -> Vec<Reading<'a>> {
        let mut readings: Vec<Reading<'a>> = texts
            .into_iter()
            .map(|text| {
                let lower = match normalize::lowercase(&text) {
                    Cow::Borrowed(_) => None,
                    Cow::Owned(lower) => Some(lower),
                };
                Reading {
                    text,
                    lower,
                    words: Vec::new(),
                    mentions: Vec::new(),
                    dated: false,
                }
            })
            .collect();
        let words: Vec<Vec<normalize::Word<'_>>> =
            readings.iter().map(|r| words(r.lower())).collect();
        let upto = dates_upto.min(readings.len());
        let lowers: Vec<&str> = readings[..upto].iter().map(Reading::lower).collect();
        let mentions = when::scan_batch(&lowers, &words[..upto]);
        let spans: Vec<Vec<(usize, usize)>> = words
            .iter()
            .map(|ws| ws.iter().map(|w| (w.start, w.end)).collect())
            .collect();
        drop(words);
        for (i, (reading, (spans, mentions))) in readings
            .iter_mut()
            .zip(
                spans
                    .into_iter()
                    .zip(mentions.into_iter().chain(std::iter::repeat_with(Vec::new))),
            )
            .enumerate()
        {
            reading.words = spans;
            reading.mentions = mentions;
            reading.dated = i < upto;
        }
        readings
    }

    fn lower(&self) -> &str {
        self.lower.as_deref().unwrap_or(&self.text)
    }

    pub fn text(&self) -> &str {
        &self.text
    }
}

/// Every string and number in a JSON value, joined by " ; ": how a call's
/// arguments or result reads as evidence.
pub fn leaves_of(value: &Json<'_>) -> String {
    let mut out = String::new();
    collect_leaves(value, &mut out);
    out
}

/// [`leaves_of`] an object's members (a call's arguments).
pub fn leaves_of_members(members: &Object<'_>) -> String {
    let mut out = String::new();
    for value in members.values() {
        collect_leaves(value, &mut out);
    }
    out
}

/// Everything the assistant has seen so far.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// The anchor date: the conversation's "now", a `GetToday` answer, or a
    /// "today is ..." said in the dialogue. Relative words ("tomorrow",
    /// "next Friday", "the 12th") are resolved against it; without it only
    /// dates stated in full count.
    today: Option<NaiveDate>,
    /// The time of day of "now", when the dialogue has one.
    clock_now: Option<Clock>,
    pieces: Vec<Piece>,
    /// Every piece's text, one after the other.
    texts: String,
    /// Normalised words of every piece, pieces separated by " | ".
    words: String,
    /// Every piece run together, pieces separated by "|".
    compact: String,
    /// Every piece's lower-case form, one after the other.
    lowers: String,
    /// Byte ranges of each piece's words in its lower-case form.
    spans: Vec<(usize, usize)>,
    /// The dates and times each piece mentions (for help lines).
    mentions: Vec<when::Found>,
    /// Content-word stems and numbers, built when a value first needs them.
    lookups: RefCell<Lookups>,
    dates: FxHashSet<NaiveDate>,
    month_days: FxHashSet<(u32, u32)>,
    days_of_month: FxHashSet<u32>,
    /// Months named, of dates mentioned, and of the anchor (for month
    /// names as values).
    months: FxHashSet<u32>,
    /// Months named on their own ("in October").
    named_months: FxHashSet<u32>,
    relative: Vec<(i64, i64)>,
    calendar_months: FxHashSet<i32>,
    weeks: FxHashSet<i32>,
    weekends: FxHashSet<i32>,
    weekdays: FxHashSet<(chrono::Weekday, Qualifier)>,
    clocks: FxHashSet<Clock>,
    bare_hours: FxHashSet<u32>,
    day_parts: Vec<(u32, u32)>,
    durations: FxHashSet<i64>,
    /// Something repeats monthly: a month after a known date is known.
    monthly: bool,
}

/// The parts of the evidence that only some values consult: the stems of
/// its words (for loose text matches) and the numbers it states. Most
/// values are found word for word, so these are built from the pieces
/// only when a value first asks, and brought up to date on later asks.
#[derive(Debug, Clone, Default)]
struct Lookups {
    /// Pieces indexed so far.
    pieces: usize,
    tokens: FxHashSet<Box<str>>,
    numbers: Vec<f64>,
}

impl Evidence {
    /// Evidence for a dialogue whose "now" is `now` (None when unknown, as
    /// in API-Bank until `GetToday` answers or the user says the date).
    pub fn new(now: Option<NaiveDateTime>) -> Evidence {
        let mut e = Evidence {
            words: String::from(" "),
            ..Evidence::default()
        };
        if let Some(now) = now {
            e.today = Some(now.date());
            e.clock_now = Some(when::clock_of(now.time()));
            e.months.insert(now.month());
        }
        e
    }

    /// Make room for about `bytes` of text (what a caller reading ahead
    /// knows), so the evidence does not grow by copying itself.
    pub fn reserve(&mut self, bytes: usize) {
        self.texts.reserve(bytes);
        self.words.reserve(bytes + bytes / 8);
        self.compact.reserve(bytes);
        self.lowers.reserve(bytes);
        self.spans.reserve(bytes / 5);
    }

    /// The anchor date, if known.
    pub fn today(&self) -> Option<NaiveDate> {
        self.today
    }

    /// Learn the anchor date late (API-Bank's `GetToday`, "today is ...").
    pub fn set_today(&mut self, date: NaiveDate) {
        if self.today.is_none() {
            self.today = Some(date);
            self.months.insert(date.month());
        }
    }

    /// Add a text the assistant has seen.
    pub fn add_text(&mut self, source: Source, text: &str) {
        let reading = Reading::read_all(vec![Cow::Borrowed(text)], 1);
        self.add_reading(source, &reading[0]);
    }

    /// Add a text read ahead with [`Reading::read_all`].
    pub fn add_reading(&mut self, source: Source, reading: &Reading) {
        let text = reading.text();
        if text.trim().is_empty() {
            return;
        }
        let lower = reading.lower();
        let start = self.texts.len();
        self.texts.push_str(text);
        let lower_start = self.lowers.len();
        self.lowers.push_str(lower);
        let spans_start = self.spans.len();
        self.spans.extend_from_slice(&reading.words);
        let mentions = reading.dated.then(|| {
            let start = self.mentions.len();
            self.mentions.extend_from_slice(&reading.mentions);
            start..self.mentions.len()
        });
        self.pieces.push(Piece {
            source,
            start,
            end: self.texts.len(),
            lower: lower_start..self.lowers.len(),
            spans: spans_start..self.spans.len(),
            mentions,
        });
        for (k, &(start, end)) in reading.words.iter().enumerate() {
            let w = &lower[start..end];
            if k > 0 {
                self.words.push(' ');
            }
            self.words.push_str(w);
            self.compact.push_str(w);
        }
        self.words.push_str(" | ");
        self.compact.push('|');
        for f in &reading.mentions {
            self.learn(&f.mention);
        }
    }

    /// Add a JSON value the assistant has seen (arguments, a result): every
    /// string and number in it.
    pub fn add_value(&mut self, source: Source, value: &Json<'_>) {
        self.add_text(source, &leaves_of(value));
    }

    /// The stems and numbers of every piece added so far.
    fn lookups(&self) -> Ref<'_, Lookups> {
        if self.lookups.borrow().pieces < self.pieces.len() {
            let mut lookups = self.lookups.borrow_mut();
            for piece in &self.pieces[lookups.pieces..] {
                let lower = &self.lowers[piece.lower.clone()];
                let spans = &self.spans[piece.spans.clone()];
                for &(start, end) in spans {
                    let stemmed = stem(&lower[start..end]);
                    if !lookups.tokens.contains(stemmed) {
                        lookups.tokens.insert(stemmed.into());
                    }
                }
                normalize::numbers_in(lower, spans, &mut lookups.numbers);
            }
            lookups.pieces = self.pieces.len();
        }
        self.lookups.borrow()
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
                self.named_months.insert(m);
            }
            Mention::Relative(a, b) => self.relative.push((a, b)),
            Mention::CalendarMonth(k) => {
                self.calendar_months.insert(k);
            }
            Mention::Week(k) => {
                self.weeks.insert(k);
            }
            Mention::Weekend(k) => {
                self.weekends.insert(k);
            }
            Mention::Weekday(w, q) => {
                self.weekdays.insert((w, q));
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
            Mention::Today(d) => self.set_today(d),
            Mention::Monthly => self.monthly = true,
        }
    }

    /// Is `value` supported by the evidence, read as `kind`? Lists are
    /// judged element by element; objects, booleans and nulls are not
    /// judged (their shape comes from the tool's documentation).
    pub fn ground(&self, value: &Json<'_>, kind: ValueKind) -> Grounding {
        match value {
            Json::Array(items) => {
                for item in items {
                    let verdict = self.ground(item, kind);
                    if !verdict.is_grounded() {
                        return verdict;
                    }
                }
                Grounding::Grounded
            }
            Json::String(s) => self.verdict(s, self.ground_str(s, kind)),
            Json::Number(n) => {
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
            // "12-10" typed as the tool wants it is no date to the reader.
            ValueKind::MonthDay => match when::parse_month_day(s) {
                Some((m, d)) => self.has_month_day(m, d) || self.has_text(s, false),
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
        let mut padded = String::with_capacity(norm.len() + 2);
        padded.push(' ');
        padded.push_str(&norm);
        padded.push(' ');
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
            self.lookups().tokens.contains(stem(w))
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
        self.lookups().tokens.iter().any(|t| {
            let shared = t.chars().zip(w.chars()).take_while(|(a, b)| a == b).count();
            let shorter = len.min(t.chars().count());
            shared >= 5 && shared * 5 >= shorter * 4
        })
    }

    fn has_number(&self, x: f64) -> bool {
        // 0 and 1 are what a model writes for "none" and "a".
        x == 0.0 || x == 1.0 || self.lookups().numbers.iter().any(|&n| (n - x).abs() < 1e-9)
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
            || (self.monthly
                && d.checked_sub_months(chrono::Months::new(1))
                    .is_some_and(|p| self.has_plain_date(p)))
            || self.durations.iter().any(|&s| {
                s % 86400 == 0
                    && s > 0
                    && [d - Duration::days(s / 86400), d + Duration::days(s / 86400)]
                        .iter()
                        .any(|&other| self.has_plain_date(other))
            })
    }

    /// A date the text names, implies ("tomorrow", "next Friday", "the
    /// 12th") or that is today.
    fn has_plain_date(&self, d: NaiveDate) -> bool {
        if self.dates.contains(&d) {
            return true;
        }
        // "Check in on 2022-03-14 ... check out Friday": a weekday in the
        // week after a date stated in full.
        if self.weekdays.iter().any(|&(w, q)| {
            w == d.weekday()
                && q != Qualifier::Last
                && (1..7).any(|k| self.dates.contains(&(d - Duration::days(k))))
        }) {
            return true;
        }
        let Some(today) = self.today else {
            // Without an anchor only what is stated outright counts: a
            // month and day, or a day of the month.
            return self.month_days.contains(&(d.month(), d.day()))
                || self.days_of_month.contains(&d.day());
        };
        if d == today {
            return true;
        }
        let near_year = (d.year() - today.year()).abs() <= 1;
        if near_year && self.month_days.contains(&(d.month(), d.day())) {
            return true;
        }
        let offset = (d - today).num_days();
        if self
            .relative
            .iter()
            .any(|&(a, b)| a <= offset && offset <= b)
        {
            return true;
        }
        let months_apart = months_between(today, d);
        if self.days_of_month.contains(&d.day())
            && (nearest_days_of_month(today, d.day()).contains(&Some(d))
                || self.calendar_months.contains(&months_apart)
                || (near_year && self.named_months.contains(&d.month())))
        {
            return true;
        }
        if self
            .weekdays
            .iter()
            .any(|&(w, q)| w == d.weekday() && weekday_dates(today, w, q).contains(&Some(d)))
        {
            return true;
        }
        if self.weeks.iter().any(|&k| in_week(today, d, k)) {
            return true;
        }
        if self.weekends.iter().any(|&k| in_weekend(today, d, k)) {
            return true;
        }
        // "next month": its first day, or the same day of it.
        self.calendar_months.contains(&months_apart) && (d.day() == 1 || d.day() == today.day())
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
        match self.today {
            Some(today) => {
                NaiveDate::from_ymd_opt(today.year(), month, day).is_some_and(|d| self.has_date(d))
            }
            None => self.days_of_month.contains(&day),
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
        if let Some(current) = self.clock_now {
            // Now, and the hours around it ("is anything on right now?").
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

    /// Is `value`, one end of a search window the assistant chooses (a
    /// query's start or end), supported? Besides what [`Evidence::ground`]
    /// accepts: any moment of a grounded day, and the first or last moment
    /// of a day (00:00:00, 23:59:59) that bounds a window around grounded
    /// dates: within a week of one, or the first or last day of a month
    /// that holds one (the month named, "next month", the current one).
    pub fn ground_bound(&self, value: &Json<'_>, kind: ValueKind) -> Grounding {
        match value {
            Json::String(s) => {
                let ok = self.ground_str(s, kind) || self.bound_ok(s.trim(), kind);
                self.verdict(s, ok)
            }
            _ => self.ground(value, kind),
        }
    }

    fn bound_ok(&self, s: &str, kind: ValueKind) -> bool {
        match kind {
            ValueKind::Timestamp => when::parse_timestamp(s).is_some_and(|t| {
                let clock = when::clock_of(t.time());
                self.has_date(t.date())
                    || (matches!(clock, 0 | 86340 | 86399) && self.window_edge(t.date()))
            }),
            ValueKind::Date => when::parse_date(s).is_some_and(|d| self.window_edge(d)),
            _ => false,
        }
    }

    /// A day that starts or ends a window around grounded dates.
    fn window_edge(&self, d: NaiveDate) -> bool {
        if (-7..=7).any(|k| self.has_date(d + Duration::days(k))) {
            return true;
        }
        let first = d.day() == 1;
        let last = d.succ_opt().is_some_and(|n| n.day() == 1);
        // The end may be written as the next month's first midnight.
        (first || last) && self.month_has_grounded_day(d)
            || first && d.pred_opt().is_some_and(|p| self.month_has_grounded_day(p))
    }

    fn month_has_grounded_day(&self, d: NaiveDate) -> bool {
        if let Some(today) = self.today {
            let near_year = (d.year() - today.year()).abs() <= 1;
            if self.calendar_months.contains(&months_between(today, d))
                || (near_year && self.named_months.contains(&d.month()))
            {
                return true;
            }
        } else if self.named_months.contains(&d.month()) {
            return true;
        }
        (1..=31)
            .filter_map(|day| d.with_day(day))
            .any(|day| self.has_date(day))
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

    fn piece_text(&self, piece: &Piece) -> &str {
        &self.texts[piece.start..piece.end]
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
        let mut best: Option<(i64, &Piece, String, usize, usize)> = None;
        for piece in &self.pieces {
            // What the piece mentions, as read when it was added (the same
            // reading of the same lower-case text), or read now.
            let read_now;
            let (lower, mentions): (&str, &[when::Found]) = match &piece.mentions {
                Some(range) => (
                    &self.lowers[piece.lower.clone()],
                    &self.mentions[range.clone()],
                ),
                None => {
                    let lower = self.piece_text(piece).to_lowercase();
                    let mentions = when::mentions(&lower);
                    read_now = (lower, mentions);
                    (&read_now.0, &read_now.1)
                }
            };
            for found in mentions {
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
                if best.as_ref().is_none_or(|(b, ..)| distance < *b) {
                    best = Some((distance, piece, lower.to_owned(), found.start, found.end));
                }
            }
        }
        best.map(|(_, piece, lower, start, end)| Closest {
            source: piece.source.clone(),
            text: self
                .piece_text(piece)
                .get(start..end)
                .unwrap_or(&lower[start..end])
                .trim()
                .to_owned(),
        })
    }

    /// The run of words most like `value` (edit distance on the
    /// normalised forms) that shares a word with it.
    fn closest_words(&self, value: &str) -> Option<Closest> {
        let target = normalized(value);
        let wanted: Vec<&str> = target
            .split(' ')
            .filter(|w| !w.is_empty() && !is_stopword(w))
            .map(stem)
            .collect();
        let want = target.split(' ').filter(|w| !w.is_empty()).count().max(1);
        let mut best: Option<(f64, &Piece, usize, usize)> = None;
        for piece in &self.pieces {
            let text = self.piece_text(piece);
            let ws = words(text);
            let shares: Vec<bool> = ws
                .iter()
                .map(|w| wanted.contains(&stem(&w.text.to_lowercase())))
                .collect();
            for len in [want.saturating_sub(1).max(1), want, want + 1] {
                if len > ws.len() {
                    continue;
                }
                for window in 0..=ws.len() - len {
                    if !shares[window..window + len].iter().any(|&s| s) {
                        continue;
                    }
                    let span = &text[ws[window].start..ws[window + len - 1].end];
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
                text: self.piece_text(piece)[start..end].to_owned(),
            })
    }
}

/// Calendar months from `a`'s to `d`'s (next month = 1).
fn months_between(a: NaiveDate, d: NaiveDate) -> i32 {
    (d.year() - a.year()) * 12 + d.month() as i32 - a.month() as i32
}

/// "the 12th" said on `today`: the next such day (today included) and the
/// last one before.
fn nearest_days_of_month(today: NaiveDate, day: u32) -> [Option<NaiveDate>; 2] {
    let in_month = |offset: i32| {
        let months = today.year() * 12 + today.month0() as i32 + offset;
        NaiveDate::from_ymd_opt(months.div_euclid(12), months.rem_euclid(12) as u32 + 1, day)
    };
    let candidates: Vec<NaiveDate> = (-2..=2).filter_map(in_month).collect();
    [
        candidates.iter().copied().find(|&d| d >= today),
        candidates.iter().copied().rev().find(|&d| d < today),
    ]
}

/// The Monday of the week holding `d`.
fn monday_of(d: NaiveDate) -> NaiveDate {
    d - Duration::days(d.weekday().num_days_from_monday() as i64)
}

/// The Sunday that starts the week holding `d`, for those whose weeks
/// start on Sunday.
fn sunday_of(d: NaiveDate) -> NaiveDate {
    d - Duration::days(d.weekday().num_days_from_sunday() as i64)
}

/// The dates a weekday names, said on `today`: a bare "Friday" is the
/// coming one or the last one (and next week's, said on a Friday); "this
/// Friday" the coming one or the one of this week; "next Friday" the
/// coming one (unless today) or the one of next week; "last Friday" the
/// one before today or the one of last week.
fn weekday_dates(today: NaiveDate, w: chrono::Weekday, q: Qualifier) -> [Option<NaiveDate>; 3] {
    let up = (w.num_days_from_monday() as i64 - today.weekday().num_days_from_monday() as i64)
        .rem_euclid(7);
    let prev = if up == 0 { -7 } else { up - 7 };
    let at = |offset: i64| Some(today + Duration::days(offset));
    let in_week =
        |k: i64| Some(monday_of(today) + Duration::days(7 * k + w.num_days_from_monday() as i64));
    match q {
        Qualifier::Bare => [
            at(up),
            at(prev),
            (up == 0).then(|| today + Duration::days(7)),
        ],
        Qualifier::This => [at(up), in_week(0), None],
        Qualifier::Next => [
            (up > 0).then(|| today + Duration::days(up)),
            at(up + 7),
            in_week(1),
        ],
        Qualifier::Last => [at(prev), in_week(-1), None],
    }
}

/// Whether `d` lies in the calendar week `k` weeks from `today`'s, with
/// weeks starting on Monday or on Sunday.
fn in_week(today: NaiveDate, d: NaiveDate, k: i32) -> bool {
    [monday_of(today), sunday_of(today)].iter().any(|&start| {
        let first = start + Duration::days(7 * k as i64);
        first <= d && d < first + Duration::days(7)
    })
}

/// Whether `d` is a day of the weekend `k` from the coming one ("next
/// weekend" may also mean the coming one).
fn in_weekend(today: NaiveDate, d: NaiveDate, k: i32) -> bool {
    use chrono::Weekday::{Sat, Sun};
    if !matches!(d.weekday(), Sat | Sun) {
        return false;
    }
    let saturday = if today.weekday() == Sun {
        today - Duration::days(1)
    } else {
        today + Duration::days((5 - today.weekday().num_days_from_monday() as i64).rem_euclid(7))
    };
    let weekends: &[i64] = if k == 1 { &[0, 1] } else { &[k as i64] };
    weekends.iter().any(|&w| {
        let sat = saturday + Duration::days(7 * w);
        d == sat || d == sat + Duration::days(1)
    })
}

/// Every string and number in a value, joined by " ; ".
fn collect_leaves(value: &Json<'_>, out: &mut String) {
    use std::fmt::Write;
    let sep = |out: &mut String| {
        if !out.is_empty() {
            out.push_str(" ; ");
        }
    };
    match value {
        Json::String(s) => {
            sep(out);
            out.push_str(s);
        }
        Json::Number(n) => {
            sep(out);
            let _ = write!(out, "{n}");
        }
        Json::Array(items) => items.iter().for_each(|v| collect_leaves(v, out)),
        Json::Object(map) => map.values().for_each(|v| collect_leaves(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
