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
        other => Err(format!(
            "strptime() argument 1 must be str, not {}",
            type_name(other)
        )),
    }
}

/// `datetime.strptime(text, fmt)`.
pub fn strptime_str(text: &str, fmt: &str) -> Result<NaiveDateTime, String> {
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

/// Format like Python's `strftime` for the same directives.
pub fn strftime(t: &NaiveDateTime, fmt: &str) -> String {
    t.format(fmt).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
