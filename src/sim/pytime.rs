//! `datetime.strptime` for the formats the tools use, with CPython's
//! leniency (one-digit months, days and hours are accepted) and its error
//! texts, which end up in recorded exceptions.

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use serde_json::Value;

use super::pyargs::{repr_str, type_name};

pub const TIMESTAMP: &str = "%Y-%m-%d %H:%M:%S";
pub const DATE: &str = "%Y-%m-%d";
pub const TIME: &str = "%H:%M:%S";

/// `datetime.strptime(value, fmt)` for a JSON value; `fmt` uses only
/// `%Y %m %d %H %M %S` and literal characters.
pub fn strptime(value: &Value, fmt: &str) -> Result<NaiveDateTime, String> {
    match value {
        Value::String(s) => strptime_str(s, fmt),
        // CPython names `None` itself, and any other type by its name.
        Value::Null => Err("strptime() argument 1 must be str, not None".into()),
        other => Err(format!(
            "strptime() argument 1 must be str, not {}",
            type_name(other)
        )),
    }
}

/// `datetime.strptime(text, fmt)`.
pub fn strptime_str(text: &str, fmt: &str) -> Result<NaiveDateTime, String> {
    // Nearly every value is written in full ("2023-09-01 07:05:00"); those
    // are read directly, anything else (or anything wrong) the general way.
    match canonical(text, fmt) {
        Some(t) => Ok(t),
        None => strptime_general(text, fmt),
    }
}

/// `text` when it is written in the format's full two-digit form with every
/// field in range and a real date; `None` for anything else.
fn canonical(text: &str, fmt: &str) -> Option<NaiveDateTime> {
    let b = text.as_bytes();
    let two = |i: usize, lo: u32, hi: u32| -> Option<u32> {
        let (x, y) = (b[i].wrapping_sub(b'0'), b[i + 1].wrapping_sub(b'0'));
        let v = u32::from(x) * 10 + u32::from(y);
        (x < 10 && y < 10 && (lo..=hi).contains(&v)).then_some(v)
    };
    let date = |o: usize| -> Option<NaiveDate> {
        let year = b[o..o + 4].iter().try_fold(0i32, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i32::from(c - b'0'))
        })?;
        if b[o + 4] != b'-' || b[o + 7] != b'-' {
            return None;
        }
        NaiveDate::from_ymd_opt(year, two(o + 5, 1, 12)?, two(o + 8, 1, 31)?)
    };
    let time = |o: usize| -> Option<NaiveTime> {
        if b[o + 2] != b':' || b[o + 5] != b':' {
            return None;
        }
        // CPython clamps a leap second (60, 61) to 59.
        let second = two(o + 6, 0, 61)?.min(59);
        NaiveTime::from_hms_opt(two(o, 0, 23)?, two(o + 3, 0, 59)?, second)
    };
    match fmt {
        TIMESTAMP if b.len() == 19 && b[10] == b' ' => {
            Some(NaiveDateTime::new(date(0)?, time(11)?))
        }
        DATE if b.len() == 10 => Some(NaiveDateTime::new(date(0)?, NaiveTime::MIN)),
        TIME if b.len() == 8 => Some(NaiveDateTime::new(
            NaiveDate::from_ymd_opt(1900, 1, 1)?,
            time(0)?,
        )),
        _ => None,
    }
}

/// `datetime.strptime(text, fmt)` directive by directive.
fn strptime_general(text: &str, fmt: &str) -> Result<NaiveDateTime, String> {
    let mismatch = || {
        format!(
            "time data {} does not match format {}",
            repr_str(text),
            repr_str(fmt)
        )
    };
    let (mut year, mut month, mut day, mut hour, mut minute, mut second) =
        (1900i32, 1u32, 1u32, 0u32, 0u32, 0u32);
    let bytes = text.as_bytes();
    let mut pos = 0usize;
    let mut directives = fmt.chars().peekable();
    while let Some(c) = directives.next() {
        if c == '%' {
            let d = directives.next().ok_or_else(mismatch)?;
            // Python's _strptime regexes: %Y four digits; others one or two
            // digits within range, longest match first.
            let (value, used) = match d {
                'Y' => take_digits(bytes, pos, 4, 4).ok_or_else(mismatch)?,
                'm' => take_ranged(bytes, pos, 1, 12).ok_or_else(mismatch)?,
                'd' => take_ranged(bytes, pos, 1, 31).ok_or_else(mismatch)?,
                'H' => take_ranged(bytes, pos, 0, 23).ok_or_else(mismatch)?,
                'M' => take_ranged(bytes, pos, 0, 59).ok_or_else(mismatch)?,
                'S' => take_ranged(bytes, pos, 0, 61).ok_or_else(mismatch)?,
                _ => return Err(format!("'{d}' is a bad directive in format '%{d}'")),
            };
            pos += used;
            match d {
                'Y' => year = value as i32,
                'm' => month = value,
                'd' => day = value,
                'H' => hour = value,
                'M' => minute = value,
                _ => second = value,
            }
        } else if c.is_whitespace() {
            // A space in the format matches one or more whitespace characters.
            let start = pos;
            while pos < bytes.len() && (bytes[pos] as char).is_ascii_whitespace() {
                pos += 1;
            }
            if pos == start {
                return Err(mismatch());
            }
        } else {
            let mut buf = [0u8; 4];
            let lit = c.encode_utf8(&mut buf).as_bytes();
            if !bytes[pos..].starts_with(lit) {
                return Err(mismatch());
            }
            pos += lit.len();
        }
    }
    if pos < bytes.len() {
        return Err(format!("unconverted data remains: {}", &text[pos..]));
    }
    // CPython clamps a leap second 61 to 59 and 60 likewise.
    let second = second.min(59);
    let date = NaiveDate::from_ymd_opt(year, month, day)
        .ok_or_else(|| "day is out of range for month".to_string())?;
    let time = NaiveTime::from_hms_opt(hour, minute, second).ok_or_else(mismatch)?;
    Ok(NaiveDateTime::new(date, time))
}

fn take_digits(bytes: &[u8], pos: usize, min: usize, max: usize) -> Option<(u32, usize)> {
    let n = bytes[pos.min(bytes.len())..]
        .iter()
        .take(max)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if n < min {
        return None;
    }
    let s = std::str::from_utf8(&bytes[pos..pos + n]).ok()?;
    Some((s.parse().ok()?, n))
}

/// One or two digits in `lo..=hi`, preferring two as Python's regex does.
fn take_ranged(bytes: &[u8], pos: usize, lo: u32, hi: u32) -> Option<(u32, usize)> {
    let (two, used) = take_digits(bytes, pos, 1, 2)?;
    if used == 2 && (lo..=hi).contains(&two) {
        return Some((two, 2));
    }
    let one = u32::from(bytes[pos] - b'0');
    (lo..=hi).contains(&one).then_some((one, 1))
}

/// Format like Python's `strftime` for the same directives, as CPython
/// does on Linux: `%Y` is the year without padding (glibc writes year 23
/// as `23`, not `0023`), which matters where a reference pads a short year
/// before parsing and formats it again.
pub fn strftime(t: &NaiveDateTime, fmt: &str) -> String {
    let mut native = String::with_capacity(fmt.len() + 2);
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        native.push(c);
        if c == '%' {
            match chars.next() {
                Some('Y') => native.push_str("-Y"),
                Some(d) => native.push(d),
                None => {}
            }
        }
    }
    t.format(&native).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_that_is_not_text_is_named_as_python_names_it() {
        assert_eq!(
            strptime(&json!(null), TIMESTAMP).unwrap_err(),
            "strptime() argument 1 must be str, not None"
        );
        assert_eq!(
            strptime(&json!(5), TIMESTAMP).unwrap_err(),
            "strptime() argument 1 must be str, not int"
        );
    }

    #[test]
    fn accepts_what_python_accepts() {
        let t = strptime_str("2023-9-1 7:05:00", TIMESTAMP).unwrap();
        assert_eq!(t.to_string(), "2023-09-01 07:05:00");
        assert_eq!(
            strptime_str("18:30:00", TIME).unwrap().time().to_string(),
            "18:30:00"
        );
    }

    #[test]
    fn the_direct_reading_agrees_with_the_general_one() {
        let mut texts: Vec<String> = vec![
            "2023-09-01 07:05:00".into(),
            "2023-02-29 10:00:00".into(),
            "2024-02-29 10:00:00".into(),
            "2023-13-01 10:00:00".into(),
            "2023-00-10 10:00:00".into(),
            "2023-12-32 10:00:00".into(),
            "2023-12-00 10:00:00".into(),
            "2023-12-10 24:00:00".into(),
            "2023-12-10 23:60:00".into(),
            "2023-12-10 23:59:60".into(),
            "2023-12-10 23:59:61".into(),
            "2023-12-10 23:59:62".into(),
            "2023-12-10T23:59:59".into(),
            "2023/12/10 23:59:59".into(),
            "2023-12-10 23-59-59".into(),
            "+023-12-10 23:59:59".into(),
            "2023-1a-10 23:59:59".into(),
            "2023-12-10  3:59:59".into(),
            "2023-9-1 7:05:00".into(),
            "0000-01-01 00:00:00".into(),
            "2023-12-10".into(),
            "2023-02-30".into(),
            "18:30:00".into(),
            "18:30:61".into(),
            "25:30:00".into(),
            "1830:00 ".into(),
        ];
        // Every value with one position replaced by a non-digit.
        for base in ["2023-09-01 07:05:00", "2023-09-01", "07:05:00"] {
            for i in 0..base.len() {
                for c in ['x', '0', '9', ' ', '-', ':'] {
                    let mut t: Vec<char> = base.chars().collect();
                    t[i] = c;
                    texts.push(t.into_iter().collect());
                }
            }
        }
        for text in &texts {
            for fmt in [TIMESTAMP, DATE, TIME] {
                assert_eq!(
                    strptime_str(text, fmt),
                    strptime_general(text, fmt),
                    "{text:?} with {fmt}"
                );
            }
        }
    }

    #[test]
    fn strftime_writes_a_short_year_unpadded_as_cpython_on_linux() {
        let t = strptime_str("0023-03-15", DATE).unwrap();
        assert_eq!(strftime(&t, DATE), "23-03-15");
        let t = strptime_str("2023-03-15 08:05:09", TIMESTAMP).unwrap();
        assert_eq!(strftime(&t, TIMESTAMP), "2023-03-15 08:05:09");
        assert_eq!(strftime(&t, "%m-%d %%Y"), "03-15 %Y");
    }

    #[test]
    fn errors_read_like_python() {
        assert_eq!(
            strptime_str("6:30 PM", TIME).unwrap_err(),
            "time data '6:30 PM' does not match format '%H:%M:%S'"
        );
        assert_eq!(
            strptime_str("18:30:00 ", TIME).unwrap_err(),
            "unconverted data remains:  "
        );
        assert_eq!(
            strptime_str("2023-02-30", DATE).unwrap_err(),
            "day is out of range for month"
        );
        assert_eq!(
            strptime(&json!(5), TIME).unwrap_err(),
            "strptime() argument 1 must be str, not int"
        );
    }
}
