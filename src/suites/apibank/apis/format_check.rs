//! The date checks several reference APIs share (each class has its own
//! copy named `format_check`): the value is stripped, a year of other than
//! four characters is padded with zeros (`"23-03-15"` is read as year 23),
//! and the result is parsed with `strptime`.
//!
//! The checks return the parse error instead of raising it; the APIs
//! raise it later (or compare it, in their correctness checks, where two
//! exception objects are never equal). So each function answers twice:
//! the outer `Err` is what Python raises at once (`.strip()` on a value
//! that is not text), the inner `Err` the error text the check hands back.

use chrono::NaiveDateTime;
use serde_json::Value;

use crate::sim::pyargs::{py_strip, py_zfill, str_method};
use crate::sim::pytime::{strftime, strptime_str};

/// What a check hands back: the value it read, or the text of the error
/// it returned in place of raising it.
pub type Checked<T> = Result<T, String>;

/// `text.strip()`, then, when it splits on `-` into exactly three parts,
/// the first padded to four characters (`str.zfill(4)`).
pub fn pad_year(text: &str) -> String {
    let text = py_strip(text);
    let parts: Vec<&str> = text.split('-').collect();
    if parts.len() != 3 || parts[0].chars().count() == 4 {
        return text.to_string();
    }
    format!("{}-{}-{}", py_zfill(parts[0], 4), parts[1], parts[2])
}

/// The check that parses `value` with `fmt` after padding its year.
pub fn parse(value: &Value, fmt: &str) -> Result<Checked<NaiveDateTime>, String> {
    let text = str_method(value, "strip")?;
    Ok(strptime_str(&pad_year(text), fmt))
}

/// The check that parses `value` with `fmt` and writes it back in the same
/// format (`strptime(...).strftime(fmt)`), which normalises one-digit
/// months and days.
pub fn reformat(value: &Value, fmt: &str) -> Result<Checked<String>, String> {
    Ok(parse(value, fmt)?.map(|t| strftime(&t, fmt)))
}

/// Two checked values compared as the reference's correctness checks
/// compare them: equal values are equal, and an error (an exception
/// object, equal only to itself) is equal to nothing.
pub fn same<T: PartialEq>(a: &Checked<T>, b: &Checked<T>) -> bool {
    matches!((a, b), (Ok(x), Ok(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::pytime::DATE;
    use serde_json::json;

    #[test]
    fn short_years_are_padded_and_dates_normalised() {
        assert_eq!(pad_year(" 23-3-5 "), "0023-3-5");
        assert_eq!(pad_year("2023-03-05"), "2023-03-05");
        assert_eq!(pad_year("03-05"), "03-05");
        assert_eq!(
            reformat(&json!("2023-3-5"), DATE),
            Ok(Ok("2023-03-05".into()))
        );
        assert_eq!(
            reformat(&json!("23-03-05"), DATE),
            Ok(Ok("23-03-05".into()))
        );
        assert_eq!(
            reformat(&json!("2023/03/05"), DATE),
            Ok(Err(
                "time data '2023/03/05' does not match format '%Y-%m-%d'".into()
            ))
        );
        assert_eq!(
            reformat(&json!(5), DATE).unwrap_err(),
            "'int' object has no attribute 'strip'"
        );
    }

    #[test]
    fn errors_are_never_the_same() {
        assert!(same::<String>(&Ok("a".into()), &Ok("a".into())));
        assert!(!same::<String>(&Err("e".into()), &Err("e".into())));
    }
}
