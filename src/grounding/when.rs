//! Dates, clock times and durations as people write them ("2pm",
//! "2:00 PM", "ten am", "half past two", "0730", "September 12th",
//! "March twenty-first", "9/12", "next Friday", "in 30 minutes"), read into
//! values that can be compared with what a tool call carries.
//!
//! Relative words are kept relative here ("next Friday" is a weekday with
//! its qualifier); [`super::Evidence`] resolves them against the dialogue's
//! anchor date, when it has one.

use std::sync::OnceLock;

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Weekday};
use regex::Regex;

use super::normalize::{number_word, Word};

/// Seconds since midnight.
pub type Clock = u32;

/// How a weekday (or weekend) was qualified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Qualifier {
    /// "Friday", "on Fridays".
    Bare,
    /// "this Friday", "this coming Friday".
    This,
    /// "next Friday".
    Next,
    /// "last Friday", "past Friday".
    Last,
}

/// Something a text says about when.
#[derive(Debug, Clone, PartialEq)]
pub enum Mention {
    /// A full date.
    Date(NaiveDate),
    /// A day of a month, year unsaid ("September 12th", "9/12").
    MonthDay(u32, u32),
    /// A day of the month alone ("the 12th", "on the twenty-first").
    DayOfMonth(u32),
    /// A month by name.
    Month(u32),
    /// Days relative to the anchor: an inclusive range of offsets (today =
    /// 0..0, tomorrow = 1..1, "in 3 days" = 3..3, "the next few days" =
    /// 0..5).
    Relative(i64, i64),
    Weekday(Weekday, Qualifier),
    /// A calendar week relative to the anchor's (this week = 0, next = 1).
    Week(i32),
    /// A weekend relative to the anchor (the coming one = 0, next = 1,
    /// last = -1).
    Weekend(i32),
    /// A clock time.
    Clock(Clock),
    /// A whole calendar month relative to the anchor's (this month = 0,
    /// next = 1).
    CalendarMonth(i32),
    /// A number that may be an hour ("from 8 to 9", "at seven").
    BareHour(u32),
    /// A part of the day: an inclusive range of hours.
    DayPart(u32, u32),
    /// A span of time, in seconds.
    Duration(i64),
    /// A statement of today's date ("Today is 2023-03-17"): the anchor.
    Today(NaiveDate),
    /// Something that repeats every month ("monthly", "every month", "for
    /// the rest of the year"): a date a month after a known one is known.
    /// (Weekly and daily repeats are durations of 7 days and 1 day.)
    Monthly,
}

/// A mention and the byte range of the words that made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub mention: Mention,
    pub start: usize,
    pub end: usize,
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

const MONTH_NAMES: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The month (1-12) a word names: "sep", "sept", "september".
pub fn month_number(word: &str) -> Option<u32> {
    let word = word.trim_end_matches('.');
    if word.len() < 3
        || word.len() > 9
        || !matches!(
            word.as_bytes()[0],
            b'j' | b'f' | b'm' | b'a' | b's' | b'o' | b'n' | b'd'
        )
    {
        return None;
    }
    let i = MONTHS.iter().position(|m| word.starts_with(m))?;
    (MONTH_NAMES[i].starts_with(word) || word == "sept").then_some(i as u32 + 1)
}

fn weekday(word: &str) -> Option<Weekday> {
    Some(match word {
        "monday" | "mondays" => Weekday::Mon,
        "tuesday" | "tuesdays" => Weekday::Tue,
        "wednesday" | "wednesdays" => Weekday::Wed,
        "thursday" | "thursdays" => Weekday::Thu,
        "friday" | "fridays" => Weekday::Fri,
        "saturday" | "saturdays" => Weekday::Sat,
        "sunday" | "sundays" => Weekday::Sun,
        _ => return None,
    })
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("valid pattern"))
}

const MONTH_WORD: &str = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?";

fn month_day() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(&format!(
            r"\b{MONTH_WORD}\s+([0-9]{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+([0-9]{{4}})\b)?"
        ))
        .expect("valid pattern")
    })
}

fn day_month() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(&format!(
            r"\b([0-9]{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_WORD}(?:,?\s+([0-9]{{4}})\b)?"
        ))
        .expect("valid pattern")
    })
}

fn duration() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"\b([0-9]+(?:\.[0-9]+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|forty-five|fifty|sixty|ninety|half an?|a half|quarter of an?|a quarter of an?)(\s+and\s+a\s+half)?\s*-?\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?)(\s+and\s+a\s+half)?\b",
    )
}

fn ordinal_word_day() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"\b((?:twenty-|thirty-)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth))\s+day\b",
    )
}

fn relative_days() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"\b(?:in\s+([0-9]+|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+(days?|weeks?|months?)|([0-9]+|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+(days?|weeks?|months?)\s+ago)\b",
    )
}

/// "the next 3 days", "the past two weeks", "the coming days".
fn rolling_days() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"\b(next|coming|following|upcoming|past|last|previous)\s+(?:([0-9]+|one|two|three|four|five|six|seven|eight|nine|ten|few|couple(?:\s+of)?)\s+)?(days|weeks)\b",
    )
}

/// "first" -> 1, "twenty-third" -> 23.
fn ordinal_word(word: &str) -> Option<u32> {
    let (tens, unit) = match word.split_once('-') {
        Some(("twenty", unit)) => (20, unit),
        Some(("thirty", unit)) => (30, unit),
        Some(_) => return None,
        None => (0, word),
    };
    let n = simple_ordinal(unit)?;
    let day = tens + n;
    (day <= 31 && (tens == 0 || n < 10)).then_some(day)
}

/// "first" .. "twentieth", "thirtieth".
fn simple_ordinal(word: &str) -> Option<u32> {
    Some(match word {
        "first" => 1,
        "second" => 2,
        "third" => 3,
        "fourth" => 4,
        "fifth" => 5,
        "sixth" => 6,
        "seventh" => 7,
        "eighth" => 8,
        "ninth" => 9,
        "tenth" => 10,
        "eleventh" => 11,
        "twelfth" => 12,
        "thirteenth" => 13,
        "fourteenth" => 14,
        "fifteenth" => 15,
        "sixteenth" => 16,
        "seventeenth" => 17,
        "eighteenth" => 18,
        "nineteenth" => 19,
        "twentieth" => 20,
        "thirtieth" => 30,
        _ => return None,
    })
}

/// An ordinal day in words starting at word `i` ("twenty first", "21st" is
/// read elsewhere): the day and the number of words it takes.
fn ordinal_words(words: &[Word<'_>], i: usize) -> Option<(u32, usize)> {
    let w = words.get(i)?.text;
    if let Some(d) = simple_ordinal(w) {
        return Some((d, 1));
    }
    let tens = match w {
        "twenty" => 20,
        "thirty" => 30,
        _ => return None,
    };
    let unit = simple_ordinal(words.get(i + 1)?.text)?;
    let day = tens + unit;
    (unit < 10 && day <= 31).then_some((day, 2))
}

/// An hour in words ("one" .. "twelve").
fn hour_word(word: &str) -> Option<u32> {
    number_word(word)
        .filter(|n| (1..=12).contains(n) && !matches!(word, "a" | "an" | "single" | "once"))
        .map(|n| n as u32)
}

/// An hour in words or digits (1..12).
fn hour_at(words: &[Word<'_>], i: usize) -> Option<u32> {
    let w = words.get(i)?.text;
    hour_word(w).or_else(|| {
        (w.len() <= 2)
            .then(|| w.parse::<u32>().ok())
            .flatten()
            .filter(|h| (1..=12).contains(h))
    })
}

/// Minutes in words after an hour ("thirty", "forty five", "oh five"):
/// the minutes and the number of words they take. A lone unit word
/// ("seven two") is no minute.
fn minute_words(words: &[Word<'_>], i: usize) -> Option<(u32, usize)> {
    let w = words.get(i)?.text;
    let unit_at = |j: usize| {
        words
            .get(j)
            .and_then(|x| number_word(x.text))
            .filter(|n| (1..10).contains(n) && !matches!(words[j].text, "a" | "an"))
    };
    if matches!(w, "oh" | "o") {
        return unit_at(i + 1).map(|u| (u as u32, 2));
    }
    let n = number_word(w)?;
    if matches!(n, 20 | 30 | 40 | 50) {
        return Some(match unit_at(i + 1) {
            Some(u) => ((n + u) as u32, 2),
            None => (n as u32, 1),
        });
    }
    (10..20).contains(&n).then_some((n as u32, 1))
}

/// Which half of the day a suffix names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Half {
    Am,
    Pm,
    /// "o'clock": either.
    Either,
}

/// "am", "a.m.", "pm", "o'clock" after a time: the half and the words taken.
fn suffix_at(words: &[Word<'_>], i: usize) -> Option<(Half, usize)> {
    let w = words.get(i)?.text;
    let next = words.get(i + 1).map(|x| x.text);
    match (w, next) {
        ("am", _) => Some((Half::Am, 1)),
        ("pm", _) => Some((Half::Pm, 1)),
        ("a", Some("m")) => Some((Half::Am, 2)),
        ("p", Some("m")) => Some((Half::Pm, 2)),
        ("o", Some("clock")) => Some((Half::Either, 2)),
        ("oclock", _) => Some((Half::Either, 1)),
        _ => None,
    }
}

/// Words after which a lone hour word is a time ("at seven").
fn time_preposition(word: &str) -> bool {
    matches!(
        word,
        "at" | "until"
            | "till"
            | "til"
            | "from"
            | "around"
            | "before"
            | "after"
            | "for"
            | "between"
    )
}

/// Words that may follow a lone hour word that is a time ("at seven
/// tomorrow"); anything else ("for two adults", "at one of") makes it a
/// count.
fn after_lone_hour(word: Option<&str>) -> bool {
    match word {
        None => true,
        Some(w) => matches!(
            w,
            "tomorrow"
                | "tonight"
                | "today"
                | "please"
                | "on"
                | "in"
                | "this"
                | "next"
                | "sharp"
                | "then"
                | "instead"
                | "and"
                | "or"
                | "every"
                | "to"
                | "until"
                | "till"
                | "so"
                | "if"
                | "but"
                | "for"
                | "that"
                | "i"
        ),
    }
}

/// A clock time from an hour (1-12, or 0-23 with `Either`), its minutes and
/// which half of the day.
fn push_clock(
    out: &mut Vec<Found>,
    hour: u32,
    minute: u32,
    half: Option<Half>,
    s: usize,
    e: usize,
) {
    let mut push = |c: Clock| {
        out.push(Found {
            mention: Mention::Clock(c),
            start: s,
            end: e,
        })
    };
    let base = minute * 60;
    match half {
        Some(Half::Am) => push((hour % 12) * 3600 + base),
        Some(Half::Pm) => push((hour % 12 + 12) * 3600 + base),
        _ => {
            push((hour % 24) * 3600 + base);
            if (1..12).contains(&hour) {
                push((hour + 12) * 3600 + base);
            } else if hour == 12 {
                push(base);
            }
        }
    }
}

/// Which families of patterns a text can hold at all: cheap checks that
/// spare the regexes most texts.
#[derive(Default)]
struct Hints {
    digit: bool,
    month: bool,
    unit: bool,
    day: bool,
    relative: bool,
    rolling: bool,
    half: bool,
}

fn hints(text: &str, words: &[Word<'_>]) -> Hints {
    let mut h = Hints {
        digit: text.bytes().any(|b| b.is_ascii_digit()),
        ..Hints::default()
    };
    // Words each pattern cannot match without.
    let (mut in_or_ago, mut direction, mut day_count, mut ordinal) = (false, false, false, false);
    let mut day_word = false;
    for w in words {
        let t = w.text;
        let Some(first) = t.bytes().next() else {
            continue;
        };
        let t = if first.is_ascii_digit() {
            // "30min", "2days": the unit glued to its number.
            t.trim_start_matches(|c: char| c.is_ascii_digit())
        } else {
            t
        };
        let Some(first) = t.bytes().next() else {
            continue;
        };
        if !h.month && matches!(first, b'j' | b'f' | b'm' | b'a' | b's' | b'o' | b'n' | b'd') {
            h.month = month_number(t).is_some();
        }
        match t {
            "half" => h.half = true,
            "in" | "ago" => in_or_ago = true,
            "next" | "coming" | "following" | "upcoming" | "past" | "last" | "previous" => {
                direction = true
            }
            "day" => {
                day_word = true;
                h.unit = true;
                day_count = true;
            }
            "days" | "weeks" => {
                h.unit = true;
                day_count = true;
                h.rolling = true;
            }
            "week" | "month" | "months" => {
                h.unit |= t == "week";
                day_count = true;
            }
            "second" | "seconds" | "sec" | "secs" | "minute" | "minutes" | "min" | "mins"
            | "hour" | "hours" | "hr" | "hrs" | "night" | "nights" => h.unit = true,
            _ => {
                if !ordinal && simple_ordinal(t).is_some() {
                    ordinal = true;
                }
            }
        }
    }
    h.relative = day_count && in_or_ago;
    h.rolling &= direction;
    h.day = day_word && ordinal;
    h
}

/// Everything `text` (lower case) says about when.
pub fn mentions(text: &str) -> Vec<Found> {
    let words = super::normalize::words(text);
    scan_batch(&[text], &[words]).pop().unwrap_or_default()
}

/// [`mentions`] of many texts (lower case, with their words already
/// split), each on its own.
pub fn scan_batch(texts: &[&str], words: &[Vec<Word<'_>>]) -> Vec<Vec<Found>> {
    texts
        .iter()
        .zip(words)
        .map(|(text, words)| {
            // The cheap word-level hints decide which patterns can match at
            // all; most texts need none of the regular expressions.
            let hints = hints(text, words);
            let mut out = Vec::new();
            let mut taken = Vec::new();
            regex_phase(text, &hints, &mut out, &mut taken);
            word_phase(text, words, &taken, &mut out);
            out
        })
        .collect()
}

/// Whether a character is a word character, as `\b` sees it.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn word_after(text: &str, at: usize) -> bool {
    text[at..].chars().next().is_some_and(is_word_char)
}

/// The run of ASCII digits starting at `at`: its end.
fn digits_from(text: &str, at: usize) -> usize {
    at + text.as_bytes()[at.min(text.len())..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count()
}

/// The value of a run of ASCII digits (saturating).
fn value_of(digits: &str) -> u32 {
    digits.parse().unwrap_or(u32::MAX)
}

/// Runs of ASCII digits that start a word: `(start, end)`. Every pattern
/// written with digits starts at one, so they are read by hand from here
/// (the patterns are those of a regular expression, noted on each reader,
/// and match exactly what it would).
fn digit_runs(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            i = digits_from(text, i);
            if !text[..start].chars().next_back().is_some_and(is_word_char) {
                out.push((start, i));
            }
        } else {
            i += 1;
        }
    }
    out
}

fn separator_at(text: &str, at: usize) -> bool {
    matches!(text.as_bytes().get(at), Some(b'-' | b'/' | b'.'))
}

/// `\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b`: (start, end, (y, m, d)).
fn iso_dates(text: &str, runs: &[(usize, usize)]) -> Vec<(usize, usize, (u32, u32, u32))> {
    let mut out = Vec::new();
    let mut resume = 0;
    for &(start, end) in runs {
        if start < resume || end - start != 4 || !separator_at(text, end) {
            continue;
        }
        let month_end = digits_from(text, end + 1);
        if !(1..=2).contains(&(month_end - end - 1)) || !separator_at(text, month_end) {
            continue;
        }
        let day_end = digits_from(text, month_end + 1);
        if !(1..=2).contains(&(day_end - month_end - 1)) || word_after(text, day_end) {
            continue;
        }
        out.push((
            start,
            day_end,
            (
                value_of(&text[start..end]),
                value_of(&text[end + 1..month_end]),
                value_of(&text[month_end + 1..day_end]),
            ),
        ));
        resume = day_end;
    }
    out
}

/// `\b(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?\b`: (start, end, a, b, year).
#[allow(clippy::type_complexity)]
fn slash_dates(text: &str, runs: &[(usize, usize)]) -> Vec<(usize, usize, u32, u32, Option<u32>)> {
    let mut out = Vec::new();
    let mut resume = 0;
    for &(start, end) in runs {
        if start < resume
            || !(1..=2).contains(&(end - start))
            || text.as_bytes().get(end) != Some(&b'/')
        {
            continue;
        }
        let second_end = digits_from(text, end + 1);
        if !(1..=2).contains(&(second_end - end - 1)) {
            continue;
        }
        let mut match_end = second_end;
        let mut year = None;
        if text.as_bytes().get(second_end) == Some(&b'/') {
            let year_end = digits_from(text, second_end + 1);
            if matches!(year_end - second_end - 1, 2 | 4) && !word_after(text, year_end) {
                year = Some(value_of(&text[second_end + 1..year_end]));
                match_end = year_end;
            }
        }
        if year.is_none() && word_after(text, second_end) {
            continue;
        }
        out.push((
            start,
            match_end,
            value_of(&text[start..end]),
            value_of(&text[end + 1..second_end]),
            year,
        ));
        resume = match_end;
    }
    out
}

/// `\bon\s+(\d{1,2})-(\d{1,2})\b` ("on 7-15"; elsewhere "8-11" is more
/// often a range of hours): (start of the digits, end, a, b).
fn dash_month_days(text: &str, runs: &[(usize, usize)]) -> Vec<(usize, usize, u32, u32)> {
    let mut out = Vec::new();
    for &(start, end) in runs {
        if !(1..=2).contains(&(end - start)) || text.as_bytes().get(end) != Some(&b'-') {
            continue;
        }
        let before = &text[..start];
        let trimmed = before.trim_end();
        let said_on = trimmed.len() < before.len()
            && trimmed
                .strip_suffix("on")
                .is_some_and(|rest| !rest.chars().next_back().is_some_and(is_word_char));
        if !said_on {
            continue;
        }
        let second_end = digits_from(text, end + 1);
        if !(1..=2).contains(&(second_end - end - 1)) || word_after(text, second_end) {
            continue;
        }
        out.push((
            start,
            second_end,
            value_of(&text[start..end]),
            value_of(&text[end + 1..second_end]),
        ));
    }
    out
}

/// `\b(\d{1,2})(?:st|nd|rd|th)\b`: (start, end, day).
fn ordinal_days(text: &str, runs: &[(usize, usize)]) -> Vec<(usize, usize, u32)> {
    let mut out = Vec::new();
    for &(start, end) in runs {
        if !(1..=2).contains(&(end - start)) {
            continue;
        }
        let ordinal = matches!(
            text.as_bytes().get(end..end + 2),
            Some(b"st" | b"nd" | b"rd" | b"th")
        );
        if ordinal && !word_after(text, end + 2) {
            out.push((start, end + 2, value_of(&text[start..end])));
        }
    }
    out
}

/// Where `\b\d{1,2}(?:[:.h]\d{2}(?::\d{2})?)?\s*(?:a\.?m\b\.?|p\.?m\b\.?|o'?clock\b|h\b)?`
/// matched from the digit run at `start` ends.
fn clock_match_end(text: &str, start: usize, run_end: usize) -> usize {
    let bytes = text.as_bytes();
    let two_digits = |at: usize| {
        bytes
            .get(at..at + 2)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let mut at = start + (run_end - start).min(2);
    if matches!(bytes.get(at), Some(b':' | b'.' | b'h')) && two_digits(at + 1) {
        at += 3;
        if bytes.get(at) == Some(&b':') && two_digits(at + 1) {
            at += 3;
        }
    }
    let spaced = at + text[at..].len() - text[at..].trim_start().len();
    let rest = &text[spaced..];
    let half = |letter: char| -> Option<usize> {
        let after = rest.strip_prefix(letter)?;
        let after = after.strip_prefix('.').unwrap_or(after);
        let after = after.strip_prefix('m')?;
        let end = text.len() - after.len();
        if word_after(text, end) {
            return None;
        }
        Some(end + usize::from(after.starts_with('.')))
    };
    let suffix = half('a')
        .or_else(|| half('p'))
        .or_else(|| {
            let after = rest.strip_prefix('o')?;
            let after = after.strip_prefix('\'').unwrap_or(after);
            let after = after.strip_prefix("clock")?;
            let end = text.len() - after.len();
            (!word_after(text, end)).then_some(end)
        })
        .or_else(|| {
            let after = rest.strip_prefix('h')?;
            let end = text.len() - after.len();
            (!word_after(text, end)).then_some(end)
        });
    suffix.unwrap_or(spaced)
}

/// The patterns that need a regular expression, over a text or a batch
/// of them; `taken` gets the spans read as dates and durations.
fn regex_phase(text: &str, hints: &Hints, out: &mut Vec<Found>, taken: &mut Vec<(usize, usize)>) {
    let push = |out: &mut Vec<Found>, mention, start, end| {
        out.push(Found {
            mention,
            start,
            end,
        })
    };
    let runs = if hints.digit {
        digit_runs(text)
    } else {
        Vec::new()
    };
    if hints.digit {
        for (start, end, (y, mo, d)) in iso_dates(text, &runs) {
            if let Some(date) = NaiveDate::from_ymd_opt(y as i32, mo, d) {
                push(out, Mention::Date(date), start, end);
                taken.push((start, end));
            }
        }
        for (start, end, a, b, year) in slash_dates(text, &runs) {
            if overlaps(taken, start, end) {
                continue;
            }
            let year = year.map(|y| if y < 100 { 2000 + y as i32 } else { y as i32 });
            // Month first (US) or day first: both readings count.
            for (mo, d) in [(a, b), (b, a)] {
                if (1..=12).contains(&mo) && (1..=31).contains(&d) {
                    match year.and_then(|y| NaiveDate::from_ymd_opt(y, mo, d)) {
                        Some(date) => push(out, Mention::Date(date), start, end),
                        None => push(out, Mention::MonthDay(mo, d), start, end),
                    }
                }
            }
            taken.push((start, end));
        }
        for (at, end, a, b) in dash_month_days(text, &runs) {
            if overlaps(taken, at, end) {
                continue;
            }
            for (mo, d) in [(a, b), (b, a)] {
                if (1..=12).contains(&mo) && (1..=31).contains(&d) {
                    push(out, Mention::MonthDay(mo, d), at, end);
                }
            }
            taken.push((at, end));
        }
        if hints.month {
            for (regex, month_group, day_group) in [(month_day(), 1, 2), (day_month(), 2, 1)] {
                for c in regex.captures_iter(text) {
                    let m = c.get(0).expect("match");
                    let Some(mo) = c.get(month_group).and_then(|w| month_number(w.as_str())) else {
                        continue;
                    };
                    let d = num(&c, day_group);
                    let year = c.get(3).and_then(|y| y.as_str().parse::<i32>().ok());
                    match year.and_then(|y| NaiveDate::from_ymd_opt(y, mo, d)) {
                        Some(date) => push(out, Mention::Date(date), m.start(), m.end()),
                        None if (1..=31).contains(&d) => {
                            push(out, Mention::MonthDay(mo, d), m.start(), m.end())
                        }
                        None => {}
                    }
                    taken.push((m.start(), m.end()));
                }
            }
        }
        for (start, end, d) in ordinal_days(text, &runs) {
            if !overlaps(taken, start, end) && (1..=31).contains(&d) {
                push(out, Mention::DayOfMonth(d), start, end);
                taken.push((start, end));
            }
        }
    }
    if hints.day {
        for c in ordinal_word_day().captures_iter(text) {
            let m = c.get(0).expect("match");
            if let Some(d) = c.get(1).and_then(|w| ordinal_word(w.as_str())) {
                push(out, Mention::DayOfMonth(d), m.start(), m.end());
            }
        }
    }
    if hints.relative {
        for c in relative_days().captures_iter(text) {
            let m = c.get(0).expect("match");
            let (count, unit, sign) = match (c.get(1), c.get(3)) {
                (Some(n), _) => (n.as_str(), c.get(2).map_or("", |u| u.as_str()), 1),
                (_, Some(n)) => (n.as_str(), c.get(4).map_or("", |u| u.as_str()), -1),
                _ => continue,
            };
            let Some(n) = count_value(count) else {
                continue;
            };
            let (low, high) = if unit.starts_with("week") {
                (n * 7, n * 7)
            } else if unit.starts_with("month") {
                (n * 28, n * 31)
            } else {
                (n, n)
            };
            let (a, b) = if sign > 0 { (low, high) } else { (-high, -low) };
            push(out, Mention::Relative(a, b), m.start(), m.end());
        }
    }
    if hints.rolling {
        for c in rolling_days().captures_iter(text) {
            let m = c.get(0).expect("match");
            let direction = c.get(1).map_or("", |g| g.as_str());
            let count = match c.get(2).map(|g| g.as_str()) {
                None | Some("few") => 5,
                Some(couple) if couple.starts_with("couple") => 3,
                Some(n) => count_value(n).unwrap_or(1),
            };
            let days = if c.get(3).is_some_and(|u| u.as_str() == "weeks") {
                count * 7
            } else {
                count
            };
            let mention = if matches!(direction, "past" | "last" | "previous") {
                Mention::Relative(-days, 0)
            } else {
                Mention::Relative(0, days)
            };
            push(out, mention, m.start(), m.end());
        }
    }

    if hints.unit {
        for c in duration().captures_iter(text) {
            let m = c.get(0).expect("match");
            let count = c.get(1).map_or("", |g| g.as_str());
            let unit = c.get(3).map_or("", |g| g.as_str());
            // "two and a half hours", "an hour and a half".
            let half = if c.get(2).is_some() || c.get(4).is_some() {
                0.5
            } else {
                0.0
            };
            let seconds_per = if unit.starts_with("sec") {
                1.0
            } else if unit.starts_with("min") {
                60.0
            } else if unit.starts_with('h') {
                3600.0
            } else if unit.starts_with('d') || unit.starts_with('n') {
                86400.0
            } else {
                7.0 * 86400.0
            };
            let count = match count {
                "half a" | "half an" | "a half" => Some(0.5),
                "quarter of a" | "quarter of an" | "a quarter of a" | "a quarter of an" => {
                    Some(0.25)
                }
                "forty-five" => Some(45.0),
                other => count_value(other)
                    .map(|n| n as f64)
                    .or_else(|| other.parse().ok()),
            };
            if let Some(count) = count {
                push(
                    out,
                    Mention::Duration(((count + half) * seconds_per).round() as i64),
                    m.start(),
                    m.end(),
                );
                taken.push((m.start(), m.end()));
            }
        }
    }
    // "an hour and a half": the half is its own span too.
    for (at, _) in text.match_indices("and a half").filter(|_| hints.half) {
        push(out, Mention::Duration(1800), at, at + 10);
    }

    if hints.digit {
        let mut resume = 0;
        for &(start, run_end) in &runs {
            if start < resume {
                continue;
            }
            if run_end - start > 2 {
                // Two of its digits match and are glued to the third: no
                // clock, and the next run starts after this one.
                continue;
            }
            let end = clock_match_end(text, start, run_end);
            resume = end;
            if overlaps(taken, start, end) {
                continue;
            }
            digit_clock(text, start, end, out);
        }
    }
}

/// The patterns read word by word, over one text.
fn word_phase(text: &str, words: &[Word<'_>], taken: &[(usize, usize)], out: &mut Vec<Found>) {
    let first = 0;
    let push = |out: &mut Vec<Found>, mention, start, end| {
        out.push(Found {
            mention,
            start,
            end,
        })
    };
    word_times(text, words, taken, out);

    let (mut tomorrow, mut yesterday) = (false, false);
    for (i, w) in words.iter().enumerate() {
        let (start, word) = (w.start, w.text);
        // Every word below starts with one of these letters.
        if !matches!(
            word.as_bytes()[0],
            b'a' | b'b'
                | b'd'
                | b'e'
                | b'f'
                | b'i'
                | b'j'
                | b'l'
                | b'm'
                | b'n'
                | b'o'
                | b'r'
                | b's'
                | b't'
                | b'w'
                | b'y'
        ) {
            continue;
        }
        let end = w.end;
        let previous = i.checked_sub(1).map(|j| words[j].text);
        let mention = match word {
            "today" | "tonight" => Mention::Relative(0, 0),
            "day" if matches!(previous, Some("every" | "each" | "per")) => Mention::Duration(86400),
            // "the day before", "the day after", "the next day", "the
            // following day", "the previous day": a day from a known date.
            "day"
                if matches!(previous, Some("next" | "following" | "previous" | "prior"))
                    || (previous == Some("the")
                        && matches!(
                            words.get(i + 1).map(|w| w.text),
                            Some("before" | "after")
                        )) =>
            {
                Mention::Duration(86400)
            }
            "year"
                if i >= 3
                    && words[i - 3].text == "rest"
                    && words[i - 2].text == "of"
                    && previous == Some("the") =>
            {
                Mention::Monthly
            }
            "tomorrow" => {
                tomorrow = true;
                Mention::Relative(1, 1)
            }
            "yesterday" => {
                yesterday = true;
                Mention::Relative(-1, -1)
            }
            "week" => match previous {
                Some("every" | "each" | "per" | "a") => Mention::Duration(7 * 86400),
                Some("this" | "current") => Mention::Week(0),
                Some("next" | "coming" | "following" | "upcoming") => {
                    push(out, Mention::Relative(1, 7), start, end);
                    Mention::Week(1)
                }
                Some("last" | "past" | "previous") => {
                    push(out, Mention::Relative(-7, -1), start, end);
                    Mention::Week(-1)
                }
                _ => continue,
            },
            "weekly" => Mention::Duration(7 * 86400),
            "daily" => Mention::Duration(86400),
            "monthly" => Mention::Monthly,
            "weekend" => match previous {
                Some("next" | "following") => Mention::Weekend(1),
                Some("last" | "past" | "previous") => Mention::Weekend(-1),
                _ => Mention::Weekend(0),
            },
            "month" => match previous {
                Some("every" | "each" | "per" | "a") => {
                    push(out, Mention::Monthly, start, end);
                    Mention::CalendarMonth(0)
                }
                Some("next" | "coming" | "following" | "upcoming") => Mention::CalendarMonth(1),
                Some("last" | "previous" | "past") => Mention::CalendarMonth(-1),
                _ => Mention::CalendarMonth(0),
            },
            // "around 6 PM" allows a window either side.
            "around" | "approximately" | "roughly" | "ish" => {
                push(out, Mention::Duration(1800), start, end);
                Mention::Duration(3600)
            }
            "noon" | "midday" | "lunch" | "lunchtime" => Mention::Clock(12 * 3600),
            "midnight" => Mention::Clock(0),
            "morning" | "breakfast" => Mention::DayPart(5, 12),
            "afternoon" => Mention::DayPart(12, 18),
            "evening" | "dinner" => Mention::DayPart(16, 23),
            "night" | "overnight" => {
                // "the night of the 15th": a stay that ends the next day.
                push(out, Mention::Duration(86400), start, end);
                Mention::DayPart(18, 23)
            }
            _ => {
                if let Some(day) = weekday(word) {
                    if word.ends_with('s') || matches!(previous, Some("every" | "each")) {
                        push(out, Mention::Duration(7 * 86400), start, end);
                    }
                    let qualifier = match previous {
                        Some("this" | "coming" | "upcoming") => Qualifier::This,
                        Some("next" | "following") => Qualifier::Next,
                        Some("last" | "past" | "previous") => Qualifier::Last,
                        _ => Qualifier::Bare,
                    };
                    Mention::Weekday(day, qualifier)
                } else if let Some(mo) = full_month_name(word) {
                    Mention::Month(mo)
                } else {
                    continue;
                }
            }
        };
        push(out, mention, start, end);
    }
    // "day after tomorrow" and friends shift the plain reading.
    if tomorrow {
        for (at, _) in text.match_indices("after tomorrow") {
            push(out, Mention::Relative(2, 2), at, at + 14);
        }
    }
    if yesterday {
        for (at, _) in text.match_indices("before yesterday") {
            push(out, Mention::Relative(-2, -2), at, at + 16);
        }
    }
    // "Today is 2023-03-17": a full date stated as today's.
    let mut anchors = Vec::new();
    for found in &out[first..] {
        if let Mention::Date(d) = found.mention {
            if states_today(&text[..found.start]) {
                anchors.push(Found {
                    mention: Mention::Today(d),
                    start: found.start,
                    end: found.end,
                });
            }
        }
    }
    out.extend(anchors);
}

/// Whether the text before a date introduces it as today's ("today is",
/// "today's date is", "the current date is").
fn states_today(before: &str) -> bool {
    let mut s = before.trim_end();
    for cut in ["the", ":", ",", "is", "was"] {
        if let Some(rest) = s.strip_suffix(cut) {
            if cut.len() == 1 || rest.is_empty() || rest.ends_with(|c: char| !c.is_alphanumeric()) {
                s = rest.trim_end();
            }
        }
    }
    [
        "today",
        "today's date",
        "todays date",
        "current date",
        "date today",
    ]
    .iter()
    .any(|phrase| {
        s.strip_suffix(phrase)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with(|c: char| !c.is_alphanumeric()))
    })
}

/// A clock time written with digits (the `clock` regex matched).
fn digit_clock(text: &str, start: usize, end: usize, out: &mut Vec<Found>) {
    let mut push = |mention| {
        out.push(Found {
            mention,
            start,
            end,
        })
    };
    // The match (see `clock_match_end`), read into its groups.
    let ms = &text.as_bytes()[start..end];
    let digits =
        |at: usize, n: usize| ms.len() >= at + n && ms[at..at + n].iter().all(u8::is_ascii_digit);
    let hour_len = if digits(0, 2) { 2 } else { 1 };
    if !digits(0, 1) {
        return;
    }
    let h = two(&ms[..hour_len]);
    let mut at = hour_len;
    let mut minute = None;
    let mut second_given = false;
    let mut second = 0;
    if ms.len() > at && matches!(ms[at], b':' | b'.' | b'h') && digits(at + 1, 2) {
        minute = Some(two(&ms[at + 1..at + 3]));
        at += 3;
        if ms.len() > at && ms[at] == b':' && digits(at + 1, 2) {
            second = two(&ms[at + 1..at + 3]);
            second_given = true;
            at += 3;
        }
    }
    let digits_end = start + at;
    let rest = text[digits_end..end].trim_start();
    let suffix = (!rest.is_empty()).then(|| rest.replace('.', ""));
    // A digit run glued to letters or other digits ("5bff", "2023") is no
    // clock.
    let glued = text[digits_end..].starts_with(|ch: char| ch.is_alphanumeric()) && suffix.is_none();
    if glued {
        return;
    }
    match (minute, suffix.as_deref()) {
        (Some(mi), suffix) if h < 24 && mi < 60 && second < 60 => {
            let base = h * 3600 + mi * 60 + second;
            match suffix {
                Some(s) if s.starts_with('p') && h < 12 => push(Mention::Clock(base + 12 * 3600)),
                Some(s) if s.starts_with('a') && h == 12 => push(Mention::Clock(base - 12 * 3600)),
                Some(s) if s.starts_with('a') || s.starts_with('p') => push(Mention::Clock(base)),
                _ => {
                    // "3:30" without am/pm: either half of the day.
                    push(Mention::Clock(base));
                    let twenty_four_hour = second_given || ms[0] == b'0';
                    if (1..12).contains(&h) && !twenty_four_hour {
                        push(Mention::Clock(base + 12 * 3600));
                    }
                }
            }
        }
        (None, Some(s)) if (1..=12).contains(&h) && (s.starts_with('a') || s.starts_with('p')) => {
            let hour = match (s.starts_with('p'), h) {
                (true, 12) => 12,
                (true, h) => h + 12,
                (false, 12) => 0,
                (false, h) => h,
            };
            push(Mention::Clock(hour * 3600));
        }
        (None, Some(s)) if h < 24 && (s.starts_with('o') || s == "h") => {
            push(Mention::Clock(h * 3600));
            if (1..12).contains(&h) {
                push(Mention::Clock((h + 12) * 3600));
            }
        }
        (None, None) if h <= 23 => {
            push(Mention::BareHour(h));
        }
        _ => {}
    }
}

/// Times and dates in words: "ten am", "seven thirty", "half past two",
/// "quarter to seven", "at seven", "0730", "1400 hours", "March
/// twenty-first", "the twenty-first of March", "on the first".
fn word_times(text: &str, words: &[Word<'_>], taken: &[(usize, usize)], out: &mut Vec<Found>) {
    let _ = text;
    let mut i = 0;
    while i < words.len() {
        let w = words[i].text;
        // Only number words, "half", "quarter", months, ordinals and
        // four-digit times start a pattern: skip the rest cheaply.
        let could_start = match w.as_bytes() {
            [b'0'..=b'9', ..] => w.len() == 4,
            [first, ..] if w.len() <= 11 => matches!(
                first,
                b'a' | b'd' | b'e' | b'f' | b'h' | b'j' | b'm' | b'n' | b'o' | b'q' | b's' | b't'
            ),
            _ => false,
        };
        if !could_start {
            i += 1;
            continue;
        }
        let start = words[i].start;
        let free = |j: usize| !overlaps(taken, words[j].start, words[j].end);
        let previous = i.checked_sub(1).map(|j| words[j].text);
        // "half past two", "quarter to seven", "ten past eight".
        let past_or_to = |j: usize| match words.get(j).map(|x| x.text) {
            Some("past" | "after") => Some(true),
            Some("to" | "till" | "til" | "before" | "of") => Some(false),
            _ => None,
        };
        let minutes_before = match w {
            "half" => Some((30, 1)),
            "quarter" => Some((15, 1)),
            _ => number_word(w)
                .filter(|n| matches!(n, 5 | 10 | 20 | 25))
                .map(|n| (n as u32, 1))
                .map(|(n, k)| match words.get(i + 1).map(|x| x.text) {
                    Some("minutes" | "mins") => (n, k + 1),
                    _ => (n, k),
                }),
        };
        if let Some((minutes, k)) = minutes_before {
            if let Some(after) = past_or_to(i + k) {
                if after || w != "half" {
                    if let Some(hour) = hour_at(words, i + k + 1) {
                        let mut j = i + k + 2;
                        let half = suffix_at(words, j).map(|(h, n)| {
                            j += n;
                            h
                        });
                        let (hour, minute) = if after {
                            (hour, minutes)
                        } else {
                            ((hour + 11) % 12, 60 - minutes)
                        };
                        let hour = if hour == 0 && half != Some(Half::Pm) {
                            12
                        } else {
                            hour
                        };
                        push_clock(out, hour, minute, half, start, words[j - 1].end);
                        if after {
                            i = j;
                            continue;
                        }
                    }
                }
            }
        }
        // "seven thirty am", "ten am", "seven o'clock", "at seven".
        if let Some(hour) = hour_word(w).filter(|_| free(i)) {
            let mut j = i + 1;
            let minute = minute_words(words, j).map(|(m, n)| {
                j += n;
                m
            });
            let half = suffix_at(words, j).map(|(h, n)| {
                j += n;
                h
            });
            if minute.is_some() || half.is_some() {
                push_clock(
                    out,
                    hour,
                    minute.unwrap_or(0),
                    half,
                    start,
                    words[j - 1].end,
                );
                i = j;
                continue;
            }
            let next = words.get(i + 1).map(|x| x.text);
            let range_after = matches!(next, Some("to" | "until" | "till" | "through"))
                && hour_at(words, i + 2).is_some();
            let range_before = matches!(previous, Some("to" | "until" | "till" | "and"))
                && i >= 2
                && hour_at(words, i - 2).is_some();
            if (previous.is_some_and(time_preposition) && after_lone_hour(next))
                || range_after
                || range_before
            {
                out.push(Found {
                    mention: Mention::BareHour(hour),
                    start,
                    end: words[i].end,
                });
            }
        }
        // "0730", "at 1400", "1400 hours".
        if w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()) {
            let (h, m) = (
                w[..2].parse::<u32>().unwrap_or(99),
                w[2..].parse::<u32>().unwrap_or(99),
            );
            let next = words.get(i + 1).map(|x| x.text);
            // "1400 hours" also reads as a (long) duration.
            let hours = matches!(next, Some("hours" | "hrs" | "h"));
            let said_as_time = hours
                || free(i)
                    && (w.starts_with('0')
                        || previous
                            .is_some_and(|p| matches!(p, "at" | "by" | "until" | "till" | "from")));
            if h < 24 && m < 60 && said_as_time {
                out.push(Found {
                    mention: Mention::Clock(h * 3600 + m * 60),
                    start,
                    end: words[i].end,
                });
            }
        }
        // "march twenty-first", "the twenty-first of march", "on the first".
        if let Some(month) = month_number(w).filter(|_| w.len() >= 3) {
            let j = if words.get(i + 1).map(|x| x.text) == Some("the") {
                i + 2
            } else {
                i + 1
            };
            if let Some((day, n)) = ordinal_words(words, j) {
                out.push(Found {
                    mention: Mention::MonthDay(month, day),
                    start,
                    end: words[j + n - 1].end,
                });
            }
        }
        if let Some((day, n)) = ordinal_words(words, i) {
            let after = words.get(i + n).map(|x| x.text);
            let month = (after == Some("of"))
                .then(|| words.get(i + n + 1))
                .flatten()
                .and_then(|x| month_number(x.text).filter(|_| x.text.len() >= 3));
            if let Some(month) = month {
                out.push(Found {
                    mention: Mention::MonthDay(month, day),
                    start,
                    end: words[i + n + 1].end,
                });
            } else if previous == Some("the")
                && (i >= 2 && words[i - 2].text == "on" || after == Some("of"))
            {
                out.push(Found {
                    mention: Mention::DayOfMonth(day),
                    start,
                    end: words[i + n - 1].end,
                });
            }
        }
        i += 1;
    }
}

/// A month by its full name (abbreviations are too often other words).
fn full_month_name(word: &str) -> Option<u32> {
    let mo = month_number(word)?;
    (word.len() >= 4 || word == "may").then_some(mo)
}

fn count_value(word: &str) -> Option<i64> {
    word.parse().ok().or_else(|| number_word(word))
}

/// The value of one or two ASCII digits.
fn two(digits: &[u8]) -> u32 {
    digits.iter().fold(0, |n, d| n * 10 + (d - b'0') as u32)
}

fn num(c: &regex::Captures<'_>, i: usize) -> u32 {
    c.get(i)
        .and_then(|g| g.as_str().parse().ok())
        .unwrap_or(u32::MAX)
}

fn overlaps(taken: &[(usize, usize)], start: usize, end: usize) -> bool {
    taken.iter().any(|&(s, e)| start < e && s < end)
}

/// Parse a value in one of the formats tools use.
pub fn parse_timestamp(value: &str) -> Option<NaiveDateTime> {
    // The canonical spelling by hand (chrono's format machinery costs more
    // than the rest of judging a value); anything else as chrono reads it.
    let b = value.as_bytes();
    if b.len() == 19 && b[10] == b' ' && b[13] == b':' && b[16] == b':' {
        if let (Some(date), Some(h), Some(m), Some(s)) = (
            canonical_date(&b[..10]),
            two_digits(&b[11..13]),
            two_digits(&b[14..16]),
            two_digits(&b[17..19]),
        ) {
            if let Some(time) = NaiveTime::from_hms_opt(h, m, s) {
                return Some(date.and_time(time));
            }
        }
    }
    NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S").ok()
}

pub fn parse_date(value: &str) -> Option<NaiveDate> {
    canonical_date(value.as_bytes()).or_else(|| NaiveDate::parse_from_str(value, "%Y-%m-%d").ok())
}

/// `dddd-dd-dd`, when it is a real date.
fn canonical_date(b: &[u8]) -> Option<NaiveDate> {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = two_digits(&b[..2])? * 100 + two_digits(&b[2..4])?;
    NaiveDate::from_ymd_opt(year as i32, two_digits(&b[5..7])?, two_digits(&b[8..10])?)
}

fn two_digits(b: &[u8]) -> Option<u32> {
    b.iter().all(u8::is_ascii_digit).then(|| two(b))
}

pub fn parse_clock(value: &str) -> Option<Clock> {
    let t = NaiveTime::parse_from_str(value, "%H:%M:%S")
        .or_else(|_| NaiveTime::parse_from_str(value, "%H:%M"))
        .ok()?;
    Some(clock_of(t))
}

pub fn clock_of(t: NaiveTime) -> Clock {
    use chrono::Timelike;
    t.num_seconds_from_midnight()
}

/// `%m-%d`, as API-Bank's history API takes it.
pub fn parse_month_day(value: &str) -> Option<(u32, u32)> {
    let (m, d) = value.split_once('-')?;
    let (m, d): (u32, u32) = (m.parse().ok()?, d.parse().ok()?);
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then_some((m, d))
}

/// Whether `date` falls on a month-day.
pub fn is_month_day(date: NaiveDate, month: u32, day: u32) -> bool {
    date.month() == month && date.day() == day
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(text: &str) -> Vec<Mention> {
        mentions(&text.to_lowercase())
            .into_iter()
            .map(|f| f.mention)
            .collect()
    }

    fn clocks(text: &str) -> Vec<Clock> {
        let mut c: Vec<Clock> = only(text)
            .into_iter()
            .filter_map(|m| match m {
                Mention::Clock(c) => Some(c),
                _ => None,
            })
            .collect();
        c.sort();
        c.dedup();
        c
    }

    fn bare_hours(text: &str) -> Vec<u32> {
        only(text)
            .into_iter()
            .filter_map(|m| match m {
                Mention::BareHour(h) => Some(h),
                _ => None,
            })
            .collect()
    }

    const H: u32 = 3600;

    #[test]
    fn clock_times_in_their_usual_spellings() {
        assert_eq!(clocks("at 2pm"), [14 * H]);
        assert_eq!(clocks("at 2:00 PM"), [14 * H]);
        assert_eq!(clocks("at 2 p.m."), [14 * H]);
        assert_eq!(clocks("at 14:00"), [14 * H]);
        assert_eq!(clocks("at 12am"), [0]);
        assert_eq!(clocks("at 12 pm"), [12 * H]);
        assert_eq!(clocks("at 7:30 am"), [7 * H + 1800]);
        assert_eq!(clocks("at 3:30"), [3 * H + 1800, 15 * H + 1800]);
        assert_eq!(clocks("at noon"), [12 * H]);
        assert_eq!(clocks("at 6 o'clock"), [6 * H, 18 * H]);
        assert_eq!(clocks("at 09:15:30"), [9 * H + 15 * 60 + 30]);
    }

    #[test]
    fn clock_times_in_words() {
        assert_eq!(clocks("wake me at ten am"), [10 * H]);
        assert_eq!(clocks("ten a.m. please"), [10 * H]);
        assert_eq!(clocks("at seven thirty am"), [7 * H + 1800]);
        assert_eq!(clocks("at seven thirty"), [7 * H + 1800, 19 * H + 1800]);
        assert_eq!(clocks("at eleven forty five pm"), [23 * H + 45 * 60]);
        assert_eq!(clocks("at seven oh five"), [7 * H + 300, 19 * H + 300]);
        assert_eq!(clocks("at seven o'clock"), [7 * H, 19 * H]);
        assert_eq!(clocks("half past two"), [2 * H + 1800, 14 * H + 1800]);
        assert!(clocks("half past 2 pm").contains(&(14 * H + 1800)));
        assert_eq!(
            clocks("a quarter to seven"),
            [6 * H + 45 * 60, 18 * H + 45 * 60]
        );
        assert_eq!(clocks("quarter past eight am"), [8 * H + 15 * 60]);
        assert_eq!(clocks("ten past nine pm"), [21 * H + 600]);
        assert_eq!(
            clocks("twenty minutes to twelve"),
            [11 * H + 40 * 60, 23 * H + 40 * 60]
        );
        assert_eq!(clocks("at midnight"), [0]);
        assert_eq!(clocks("at 0730"), [7 * H + 1800]);
        assert_eq!(clocks("1400 hours"), [14 * H]);
        assert_eq!(bare_hours("set an alarm for seven"), [7]);
        assert_eq!(bare_hours("from eight to ten tomorrow"), [8, 10]);
    }

    #[test]
    fn numbers_in_words_that_are_not_times() {
        assert!(clocks("two adults and one child").is_empty());
        assert!(bare_hours("a table for two adults").is_empty());
        assert!(bare_hours("at one of the stages").is_empty());
        assert!(bare_hours("I have seven apples").is_empty());
        assert!(clocks("a quarter of an hour").is_empty());
        assert!(clocks("in 2023").is_empty());
        assert!(clocks("order 1234 shipped").is_empty());
        assert!(clocks("from 2023-09-11 to 2023-09-15").is_empty());
        assert!(bare_hours("for two hours").is_empty());
    }

    #[test]
    fn numbers_that_are_not_clock_times() {
        assert!(clocks("room 25").is_empty());
        assert!(clocks("id 5bff-dd80").is_empty());
        assert!(clocks("the year 2023").is_empty());
        assert!(clocks("on 2023-09-12").is_empty());
        assert!(clocks("on 9/12").is_empty());
        assert_eq!(
            only("from 8 to 9"),
            [Mention::BareHour(8), Mention::BareHour(9)]
        );
    }

    #[test]
    fn dates_in_their_usual_spellings() {
        let d = |y, m, d| Mention::Date(NaiveDate::from_ymd_opt(y, m, d).unwrap());
        assert_eq!(only("on 2023-09-12"), [d(2023, 9, 12)]);
        assert!(only("on September 12th").contains(&Mention::MonthDay(9, 12)));
        assert!(only("on Sept. 12").contains(&Mention::MonthDay(9, 12)));
        assert!(only("on 12 Sep").contains(&Mention::MonthDay(9, 12)));
        assert!(only("the 12th of September, 2024").contains(&d(2024, 9, 12)));
        assert!(only("on 9/12").contains(&Mention::MonthDay(9, 12)));
        assert!(only("on 9/12").contains(&Mention::MonthDay(12, 9)));
        assert!(only("on 9/12/2023").contains(&d(2023, 9, 12)));
        assert_eq!(only("the 3rd"), [Mention::DayOfMonth(3)]);
        assert!(only("on the first day of the month").contains(&Mention::DayOfMonth(1)));
        assert!(only("the twenty-third day").contains(&Mention::DayOfMonth(23)));
        assert!(!only("the first time")
            .iter()
            .any(|m| matches!(m, Mention::DayOfMonth(_))));
        assert!(only("in March").contains(&Mention::Month(3)));
        assert!(!only("may I ask").contains(&Mention::Month(5)) || only("may I ask").len() == 1);
    }

    #[test]
    fn dates_in_words() {
        assert!(only("March twenty-first at ten am").contains(&Mention::MonthDay(3, 21)));
        assert!(only("on march the first").contains(&Mention::MonthDay(3, 1)));
        assert!(only("the thirtieth of june").contains(&Mention::MonthDay(6, 30)));
        assert!(only("the twenty first of october").contains(&Mention::MonthDay(10, 21)));
        assert!(only("on the second").contains(&Mention::DayOfMonth(2)));
        assert!(!only("the second time we met")
            .iter()
            .any(|m| matches!(m, Mention::DayOfMonth(_) | Mention::MonthDay(..))));
        assert!(!only("March forward")
            .iter()
            .any(|m| matches!(m, Mention::MonthDay(..))));
    }

    #[test]
    fn relative_dates_and_weekdays() {
        assert!(only("tomorrow").contains(&Mention::Relative(1, 1)));
        assert!(only("the day after tomorrow").contains(&Mention::Relative(2, 2)));
        assert!(only("in 3 days").contains(&Mention::Relative(3, 3)));
        assert!(only("two weeks ago").contains(&Mention::Relative(-14, -14)));
        assert!(only("in a month").contains(&Mention::Relative(28, 31)));
        assert!(only("the next 3 days").contains(&Mention::Relative(0, 3)));
        assert!(only("over the past two weeks").contains(&Mention::Relative(-14, 0)));
        assert!(only("next week").contains(&Mention::Week(1)));
        assert!(only("last week").contains(&Mention::Week(-1)));
        assert!(only("this week").contains(&Mention::Week(0)));
        assert!(!only("twice a week")
            .iter()
            .any(|m| matches!(m, Mention::Week(_))));
        assert!(only("this weekend").contains(&Mention::Weekend(0)));
        assert!(only("on Friday").contains(&Mention::Weekday(Weekday::Fri, Qualifier::Bare)));
        assert!(only("next Friday").contains(&Mention::Weekday(Weekday::Fri, Qualifier::Next)));
        assert!(only("this Friday").contains(&Mention::Weekday(Weekday::Fri, Qualifier::This)));
        assert!(only("last Friday").contains(&Mention::Weekday(Weekday::Fri, Qualifier::Last)));
        assert!(only("next month").contains(&Mention::CalendarMonth(1)));
        assert!(only("last month").contains(&Mention::CalendarMonth(-1)));
        assert!(only("this month").contains(&Mention::CalendarMonth(0)));
    }

    #[test]
    fn now_and_currently_are_not_dates() {
        assert!(only("now, let me check").is_empty());
        assert!(only("what is currently on").is_empty());
        assert_eq!(only("today"), [Mention::Relative(0, 0)]);
    }

    #[test]
    fn statements_of_today() {
        let today = |t: &str| {
            only(t).into_iter().find_map(|m| match m {
                Mention::Today(d) => Some(d),
                _ => None,
            })
        };
        let d = NaiveDate::from_ymd_opt(2023, 3, 17);
        assert_eq!(today("my schedule for tomorrow? Today is 2023-03-17."), d);
        assert_eq!(today("Sure, the current date is 2023-03-17."), d);
        assert_eq!(today("today's date is March 17, 2023"), d);
        assert_eq!(today("my dentist is on 2023-03-17"), None);
        assert_eq!(today("this is 2023-03-17"), None);
        assert_eq!(today("today I moved it to 2023-03-17"), None);
    }

    #[test]
    fn durations() {
        let durations = |t: &str| -> Vec<i64> {
            only(t)
                .into_iter()
                .filter_map(|m| match m {
                    Mention::Duration(s) => Some(s),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(durations("30 minutes before"), [1800]);
        assert_eq!(durations("30min before"), [1800]);
        assert_eq!(durations("an hour early"), [3600]);
        assert_eq!(durations("half an hour"), [1800]);
        assert_eq!(durations("2 hours"), [7200]);
        assert_eq!(durations("1.5 hours"), [5400]);
        assert_eq!(durations("ten mins"), [600]);
    }

    #[test]
    fn the_fast_readings_agree_with_chrono() {
        for value in [
            "2023-09-12 14:00:00",
            "2023-02-30 14:00:00",
            "2023-09-12 24:00:00",
            "2023-09-12 23:59:60",
            "2023-9-12 14:00:00",
            "2023-09-12T14:00:00",
            "2023-09-12 14:00",
            "abcd-ef-gh ij:kl:mn",
        ] {
            assert_eq!(
                parse_timestamp(value),
                NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S").ok(),
                "{value}"
            );
        }
        for value in [
            "2023-09-12",
            "2023-02-30",
            "2023-9-12",
            "12-09-2023",
            "2023/09/12",
        ] {
            assert_eq!(
                parse_date(value),
                NaiveDate::parse_from_str(value, "%Y-%m-%d").ok(),
                "{value}"
            );
        }
    }

    #[test]
    fn value_formats() {
        assert!(parse_timestamp("2023-09-12 14:00:00").is_some());
        assert!(parse_timestamp("2023-09-12 14:00").is_none());
        assert_eq!(parse_clock("07:30:00"), Some(7 * H + 1800));
        assert_eq!(parse_month_day("12-10"), Some((12, 10)));
        assert_eq!(parse_month_day("13-10"), None);
        assert_eq!(month_number("sept"), Some(9));
        assert_eq!(month_number("septembre"), None);
        assert_eq!(month_number("ma"), None);
    }
}
