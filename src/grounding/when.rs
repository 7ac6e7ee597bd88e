//! Dates, clock times and durations as people write them ("2pm",
//! "2:00 PM", "September 12th", "9/12", "next Friday", "in 30 minutes"),
//! read into values that can be compared with what a tool call carries.

use std::sync::OnceLock;

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Weekday};
use regex::Regex;

use super::normalize::number_word;

/// Seconds since midnight.
pub type Clock = u32;

/// Something a text says about when.
#[derive(Debug, Clone, PartialEq)]
pub enum Mention {
    /// A full date.
    Date(NaiveDate),
    /// A day of a month, year unsaid ("September 12th", "9/12").
    MonthDay(u32, u32),
    /// A day of the month alone ("the 12th").
    DayOfMonth(u32),
    /// A month by name.
    Month(u32),
    /// Days relative to "now": an inclusive range of offsets (today = 0..0,
    /// tomorrow = 1..1, next week = 1..13).
    Relative(i64, i64),
    Weekday(Weekday),
    /// A clock time.
    Clock(Clock),
    /// A whole calendar month relative to now's (this month = 0, next = 1).
    CalendarMonth(i32),
    /// A number that may be an hour ("from 8 to 9").
    BareHour(u32),
    /// A part of the day: an inclusive range of hours.
    DayPart(u32, u32),
    /// A span of time, in seconds.
    Duration(i64),
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

/// The month (1-12) a word names: "sep", "sept", "september".
pub fn month_number(word: &str) -> Option<u32> {
    let word = word.trim_end_matches('.');
    if word.len() < 3 {
        return None;
    }
    let i = MONTHS.iter().position(|m| word.starts_with(m))?;
    let full = [
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
    ][i];
    (full.starts_with(word) || word == "sept").then_some(i as u32 + 1)
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

fn iso_date() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b")
}

fn slash_date() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"\b(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?\b")
}

fn month_day() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(&format!(
            r"\b{MONTH_WORD}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}})\b)?"
        ))
        .expect("valid pattern")
    })
}

fn day_month() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(&format!(
            r"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_WORD}(?:,?\s+(\d{{4}})\b)?"
        ))
        .expect("valid pattern")
    })
}

fn ordinal_day() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"\b(\d{1,2})(?:st|nd|rd|th)\b")
}

fn clock() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"\b(\d{1,2})(?:[:.h](\d{2})(?::(\d{2}))?)?\s*(a\.?m\b\.?|p\.?m\b\.?|o'?clock\b|h\b)?",
    )
}

fn duration() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"\b(\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|forty-five|fifty|sixty|ninety|half an?|a half|quarter of an?|a quarter of an?)\s*-?\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?)\b",
    )
}

fn ordinal_word_day() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"\b((?:twenty-|thirty-)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth))\s+day\b",
    )
}

/// "first" -> 1, "twenty-third" -> 23.
fn ordinal_word(word: &str) -> Option<u32> {
    const ORDINALS: [&str; 20] = [
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
        "twentieth",
    ];
    let (tens, unit) = match word.split_once('-') {
        Some(("twenty", unit)) => (20, unit),
        Some(("thirty", unit)) => (30, unit),
        Some(_) => return None,
        None if word == "thirtieth" => return Some(30),
        None => (0, word),
    };
    let n = ORDINALS.iter().position(|o| *o == unit)? as u32 + 1;
    let day = tens + n;
    (day <= 31 && (tens == 0 || n < 10)).then_some(day)
}

fn relative_days() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"\b(?:in\s+(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+(days?|weeks?)|(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+(days?|weeks?)\s+ago)\b",
    )
}

/// Everything `text` (lower case) says about when.
pub fn mentions(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut push = |mention, start, end| {
        out.push(Found {
            mention,
            start,
            end,
        })
    };
    // Byte ranges already read as dates, so their numbers are not clock times.
    let mut taken: Vec<(usize, usize)> = Vec::new();

    for c in iso_date().captures_iter(text) {
        let m = c.get(0).expect("match");
        let (y, mo, d) = (num(&c, 1), num(&c, 2), num(&c, 3));
        if let Some(date) = NaiveDate::from_ymd_opt(y as i32, mo, d) {
            push(Mention::Date(date), m.start(), m.end());
            taken.push((m.start(), m.end()));
        }
    }
    for c in slash_date().captures_iter(text) {
        let m = c.get(0).expect("match");
        if overlaps(&taken, m.start(), m.end()) {
            continue;
        }
        let (a, b) = (num(&c, 1), num(&c, 2));
        let year = c.get(3).map(|y| {
            let y: i32 = y.as_str().parse().unwrap_or(0);
            if y < 100 {
                2000 + y
            } else {
                y
            }
        });
        // Month first (US) or day first: both readings count.
        for (mo, d) in [(a, b), (b, a)] {
            if (1..=12).contains(&mo) && (1..=31).contains(&d) {
                match year.and_then(|y| NaiveDate::from_ymd_opt(y, mo, d)) {
                    Some(date) => push(Mention::Date(date), m.start(), m.end()),
                    None => push(Mention::MonthDay(mo, d), m.start(), m.end()),
                }
            }
        }
        taken.push((m.start(), m.end()));
    }
    for (regex, month_group, day_group) in [(month_day(), 1, 2), (day_month(), 2, 1)] {
        for c in regex.captures_iter(text) {
            let m = c.get(0).expect("match");
            let Some(mo) = c.get(month_group).and_then(|w| month_number(w.as_str())) else {
                continue;
            };
            let d = num(&c, day_group);
            let year = c.get(3).and_then(|y| y.as_str().parse::<i32>().ok());
            match year.and_then(|y| NaiveDate::from_ymd_opt(y, mo, d)) {
                Some(date) => push(Mention::Date(date), m.start(), m.end()),
                None if (1..=31).contains(&d) => push(Mention::MonthDay(mo, d), m.start(), m.end()),
                None => {}
            }
            taken.push((m.start(), m.end()));
        }
    }
    for c in ordinal_day().captures_iter(text) {
        let m = c.get(0).expect("match");
        let d = num(&c, 1);
        if !overlaps(&taken, m.start(), m.end()) && (1..=31).contains(&d) {
            push(Mention::DayOfMonth(d), m.start(), m.end());
            taken.push((m.start(), m.end()));
        }
    }
    for c in ordinal_word_day().captures_iter(text) {
        let m = c.get(0).expect("match");
        if let Some(d) = c.get(1).and_then(|w| ordinal_word(w.as_str())) {
            push(Mention::DayOfMonth(d), m.start(), m.end());
        }
    }
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
        let days = if unit.starts_with("week") { n * 7 } else { n };
        push(
            Mention::Relative(sign * days, sign * days),
            m.start(),
            m.end(),
        );
    }

    for c in duration().captures_iter(text) {
        let m = c.get(0).expect("match");
        let count = c.get(1).map_or("", |g| g.as_str());
        let unit = c.get(2).map_or("", |g| g.as_str());
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
            "quarter of a" | "quarter of an" | "a quarter of a" | "a quarter of an" => Some(0.25),
            "forty-five" => Some(45.0),
            other => count_value(other)
                .map(|n| n as f64)
                .or_else(|| other.parse().ok()),
        };
        if let Some(count) = count {
            push(
                Mention::Duration((count * seconds_per).round() as i64),
                m.start(),
                m.end(),
            );
            taken.push((m.start(), m.end()));
        }
    }
    if text.contains("and a half") {
        // "an hour and a half": the half is its own span too.
        if let Some(at) = text.find("and a half") {
            push(Mention::Duration(1800), at, at + 10);
        }
    }

    for c in clock().captures_iter(text) {
        let m = c.get(0).expect("match");
        if overlaps(&taken, m.start(), m.end()) {
            continue;
        }
        let h = num(&c, 1);
        let minute = c.get(2).map(|g| g.as_str().parse::<u32>().unwrap_or(99));
        let second = c
            .get(3)
            .map_or(0, |g| g.as_str().parse::<u32>().unwrap_or(99));
        let suffix = c.get(4).map(|g| g.as_str().replace('.', ""));
        // A digit run glued to letters or other digits ("5bff", "2023") is no clock.
        let digits_end = c
            .get(3)
            .or(c.get(2))
            .or(c.get(1))
            .map_or(m.end(), |g| g.end());
        let glued =
            text[digits_end..].starts_with(|ch: char| ch.is_alphanumeric()) && suffix.is_none();
        if glued {
            continue;
        }
        match (minute, suffix.as_deref()) {
            (Some(mi), suffix) if h < 24 && mi < 60 && second < 60 => {
                let base = h * 3600 + mi * 60 + second;
                match suffix {
                    Some(s) if s.starts_with('p') && h < 12 => {
                        push(Mention::Clock(base + 12 * 3600), m.start(), m.end())
                    }
                    Some(s) if s.starts_with('a') && h == 12 => {
                        push(Mention::Clock(base - 12 * 3600), m.start(), m.end())
                    }
                    Some(s) if s.starts_with('a') || s.starts_with('p') => {
                        push(Mention::Clock(base), m.start(), m.end())
                    }
                    _ => {
                        // "3:30" without am/pm: either half of the day.
                        push(Mention::Clock(base), m.start(), m.end());
                        let twenty_four_hour = c.get(3).is_some()
                            || c.get(1).is_some_and(|g| g.as_str().starts_with('0'));
                        if (1..12).contains(&h) && !twenty_four_hour {
                            push(Mention::Clock(base + 12 * 3600), m.start(), m.end());
                        }
                    }
                }
            }
            (None, Some(s))
                if (1..=12).contains(&h) && (s.starts_with('a') || s.starts_with('p')) =>
            {
                let hour = match (s.starts_with('p'), h) {
                    (true, 12) => 12,
                    (true, h) => h + 12,
                    (false, 12) => 0,
                    (false, h) => h,
                };
                push(Mention::Clock(hour * 3600), m.start(), m.end());
            }
            (None, Some(s)) if h < 24 && (s.starts_with('o') || s == "h") => {
                push(Mention::Clock(h * 3600), m.start(), m.end());
                if (1..12).contains(&h) {
                    push(Mention::Clock((h + 12) * 3600), m.start(), m.end());
                }
            }
            (None, None) if h <= 23 && c.get(1).is_some_and(|g| g.as_str().len() <= 2) => {
                push(Mention::BareHour(h), m.start(), m.end());
            }
            _ => {}
        }
    }

    for (start, word) in super::normalize::words(text)
        .into_iter()
        .map(|w| (w.start, w.text))
    {
        let end = start + word.len();
        let mention = match word {
            "today" | "tonight" | "now" | "currently" => Mention::Relative(0, 0),
            "tomorrow" => Mention::Relative(1, 1),
            "yesterday" => Mention::Relative(-1, -1),
            "week" | "weekend" | "weekly" => Mention::Relative(-13, 13),
            "month" | "monthly" => {
                let before = &text[..start];
                let offset = if before.ends_with("next ") || before.ends_with("coming ") {
                    1
                } else if before.ends_with("last ") || before.ends_with("previous ") {
                    -1
                } else {
                    0
                };
                push(Mention::Relative(-31, 31), start, end);
                Mention::CalendarMonth(offset)
            }
            // "around 6 PM" allows a window either side.
            "around" | "approximately" | "roughly" | "ish" => {
                push(Mention::Duration(1800), start, end);
                Mention::Duration(3600)
            }
            "noon" | "midday" | "lunch" | "lunchtime" => Mention::Clock(12 * 3600),
            "midnight" => Mention::Clock(0),
            "morning" | "breakfast" => Mention::DayPart(5, 12),
            "afternoon" => Mention::DayPart(12, 18),
            "evening" | "dinner" => Mention::DayPart(16, 23),
            "night" | "overnight" => {
                // "the night of the 15th": a stay that ends the next day.
                push(Mention::Duration(86400), start, end);
                Mention::DayPart(18, 23)
            }
            _ => {
                if let Some(day) = weekday(word) {
                    Mention::Weekday(day)
                } else if let Some(mo) = full_month_name(word) {
                    Mention::Month(mo)
                } else {
                    continue;
                }
            }
        };
        push(mention, start, end);
    }
    // "day after tomorrow" and friends shift the plain reading.
    if text.contains("after tomorrow") {
        if let Some(at) = text.find("after tomorrow") {
            push(Mention::Relative(2, 2), at, at + 14);
        }
    }
    if text.contains("before yesterday") {
        if let Some(at) = text.find("before yesterday") {
            push(Mention::Relative(-2, -2), at, at + 16);
        }
    }
    out
}

/// A month by its full name (abbreviations are too often other words).
fn full_month_name(word: &str) -> Option<u32> {
    let mo = month_number(word)?;
    (word.len() >= 4 || word == "may").then_some(mo)
}

fn count_value(word: &str) -> Option<i64> {
    word.parse().ok().or_else(|| number_word(word))
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
    NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S").ok()
}

pub fn parse_date(value: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d").ok()
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
        only(text)
            .into_iter()
            .filter_map(|m| match m {
                Mention::Clock(c) => Some(c),
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
    fn relative_dates_and_weekdays() {
        assert!(only("tomorrow").contains(&Mention::Relative(1, 1)));
        assert!(only("the day after tomorrow").contains(&Mention::Relative(2, 2)));
        assert!(only("in 3 days").contains(&Mention::Relative(3, 3)));
        assert!(only("two weeks ago").contains(&Mention::Relative(-14, -14)));
        assert!(only("next week").contains(&Mention::Relative(-13, 13)));
        assert!(only("on Friday").contains(&Mention::Weekday(Weekday::Fri)));
        assert!(only("next month").contains(&Mention::CalendarMonth(1)));
        assert!(only("last month").contains(&Mention::CalendarMonth(-1)));
        assert!(only("this month").contains(&Mention::CalendarMonth(0)));
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
        assert_eq!(durations("an hour early"), [3600]);
        assert_eq!(durations("half an hour"), [1800]);
        assert_eq!(durations("2 hours"), [7200]);
        assert_eq!(durations("1.5 hours"), [5400]);
        assert_eq!(durations("ten mins"), [600]);
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
