//! Calling a tool the way Python calls `tool.call(**parameters)`: the same
//! `TypeError` texts for unexpected and missing keyword arguments, and
//! Python's names for JSON types in error messages. Exceptions are part of a
//! gold call's result, so their wording matters.

use serde_json::{Map, Value};

use crate::formats::write::python_float;

/// Arguments bound to a tool's Python signature.
#[derive(Debug, Clone, Copy)]
pub struct Args<'a> {
    map: &'a Map<String, Value>,
}

/// `map.get(key)` for the small objects tools take and compare: looking
/// through a handful of keys is cheaper than hashing one (serde_json's maps
/// hash with SipHash); larger maps are looked up by hash as usual.
pub fn lookup<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    const SCAN_AT_MOST: usize = 8;
    if map.len() <= SCAN_AT_MOST {
        map.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        map.get(key)
    }
}

impl<'a> Args<'a> {
    /// The value passed for `name`; `None` when absent or null (Python's
    /// default of `None` and an explicit `None` behave alike).
    pub fn get(&self, name: &str) -> Option<&'a Value> {
        lookup(self.map, name).filter(|v| !v.is_null())
    }

    /// A required argument (present after binding; may still be null).
    pub fn value(&self, name: &str) -> &'a Value {
        lookup(self.map, name).unwrap_or(&Value::Null)
    }

    pub fn raw(&self) -> &'a Map<String, Value> {
        self.map
    }
}

/// Bind `params` to `Tool.call(self, <required...>, <optional...>=None)`.
///
/// `class` is the tool's class name (Python 3.11 prefixes messages with the
/// qualified name, `AddAlarm.call()`).
pub fn bind<'a>(
    class: &str,
    params: &'a Map<String, Value>,
    required: &[&str],
    optional: &[&str],
) -> Result<Args<'a>, String> {
    // CPython rejects an unknown keyword before it looks for missing ones.
    if let Some(unknown) = params
        .keys()
        .find(|k| !required.iter().chain(optional).any(|name| name == k))
    {
        return Err(format!(
            "{class}.call() got an unexpected keyword argument {}",
            repr_str(unknown)
        ));
    }
    let missing: Vec<&str> = required
        .iter()
        .copied()
        .filter(|r| lookup(params, r).is_none())
        .collect();
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|m| repr_str(m)).collect();
        let listed = match names.len() {
            1 => names[0].clone(),
            2 => format!("{} and {}", names[0], names[1]),
            _ => format!(
                "{}, and {}",
                names[..names.len() - 1].join(", "),
                names[names.len() - 1]
            ),
        };
        let plural = if missing.len() == 1 {
            "argument"
        } else {
            "arguments"
        };
        return Err(format!(
            "{class}.call() missing {} required positional {plural}: {listed}",
            missing.len()
        ));
    }
    Ok(Args { map: params })
}

/// Python's type name for a JSON value (`type(v).__name__`).
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python's `repr()` of a string: single quotes unless the text has a single
/// quote and no double quote.
pub fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr()` of a JSON value (dicts and lists as Python prints them,
/// floats as Python writes them: `1e-07`, `1e+20`, `2.0`).
pub fn repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => match n.as_f64() {
            Some(x) if n.is_f64() => python_float(x),
            _ => n.to_string(),
        },
        Value::String(s) => repr_str(s),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(repr).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", repr_str(k), repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `str()` of a Python `KeyError(key)`: the key's repr.
pub fn key_error(key: &str) -> String {
    repr_str(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn type_errors_read_like_cpython_311() {
        let p = map(json!({"session_token": "t", "tme": "x"}));
        assert_eq!(
            bind("AddAlarm", &p, &["session_token", "time"], &[]).unwrap_err(),
            "AddAlarm.call() got an unexpected keyword argument 'tme'"
        );
        let p = map(json!({"session_token": "t"}));
        assert_eq!(
            bind("AddAlarm", &p, &["session_token", "time"], &[]).unwrap_err(),
            "AddAlarm.call() missing 1 required positional argument: 'time'"
        );
        let p = map(json!({}));
        assert_eq!(
            bind("X", &p, &["a", "b"], &[]).unwrap_err(),
            "X.call() missing 2 required positional arguments: 'a' and 'b'"
        );
        assert_eq!(
            bind("X", &p, &["a", "b", "c"], &[]).unwrap_err(),
            "X.call() missing 3 required positional arguments: 'a', 'b', and 'c'"
        );
        let p = map(json!({"a": 1}));
        assert!(bind("X", &p, &["a"], &["b"]).is_ok());
    }

    #[test]
    fn repr_quotes_like_python() {
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("a\"b'c"), "'a\"b\\'c'");
        assert_eq!(
            repr(&json!({"a": [1, null, true]})),
            "{'a': [1, None, True]}"
        );
    }

    /// Floats read as Python's `repr` and f-strings write them: in
    /// scientific notation below 1e-4 and from 1e16, with a signed
    /// two-digit exponent, and with `.0` when whole.
    #[test]
    fn floats_are_written_as_python_writes_them() {
        // python3: [repr(x) for x in xs]
        for (x, want) in [
            (1e-07, "1e-07"),
            (1e-05, "1e-05"),
            (0.0001, "0.0001"),
            (1e20, "1e+20"),
            (2.0, "2.0"),
            (1.5, "1.5"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (-0.0, "-0.0"),
            (-2.5e-10, "-2.5e-10"),
            (123456789012345.6, "123456789012345.6"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
        ] {
            assert_eq!(repr(&json!(x)), want);
            assert_eq!(display(&json!(x)), want);
        }
        assert_eq!(repr(&json!([1e-07, {"a": 2.0}])), "[1e-07, {'a': 2.0}]");
        assert_eq!(repr(&json!(u64::MAX)), "18446744073709551615");
        assert_eq!(repr(&json!(-3)), "-3");
    }
}

/// Python's `str()` of a value as an f-string shows it (`f"{x}"`).
pub fn display(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => repr(other),
    }
}

/// Python's `==` between two JSON values: numbers (and booleans, which are
/// ints in Python) compare by value whatever their JSON spelling, so
/// `1 == 1.0 == true`; dicts compare regardless of key order.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    fn number(v: &Value) -> Option<f64> {
        match v {
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if !x.is_f64() && !y.is_f64() => {
            // Both integers: exact, without a detour through f64.
            x.as_i64().map(i128::from).or(x.as_u64().map(i128::from))
                == y.as_i64().map(i128::from).or(y.as_u64().map(i128::from))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => py_eq_objects(x, y),
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// [`py_eq`] of two objects (Python's `==` on dicts), without wrapping
/// them in values.
pub fn py_eq_objects(x: &Map<String, Value>, y: &Map<String, Value>) -> bool {
    // Objects made alike list their keys in the same order; then (keys
    // being unique) each value is compared with the one at its place, and
    // nothing is looked up.
    x.len() == y.len()
        && if x.keys().zip(y.keys()).all(|(k, l)| k == l) {
            x.values().zip(y.values()).all(|(v, w)| py_eq(v, w))
        } else {
            x.iter()
                .all(|(k, v)| lookup(y, k).is_some_and(|w| py_eq(v, w)))
        }
}

/// Python's truth value of a JSON value (`bool(value)`).
pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// The `AttributeError` text for `value.attr` on a type without it, as in
/// `'int' object has no attribute 'lower'`.
pub fn no_attribute(value: &Value, attr: &str) -> String {
    format!("'{}' object has no attribute '{attr}'", type_name(value))
}

/// `value.lower()` for a value Python expects to be a `str`.
pub fn lower(value: &Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s.to_lowercase()),
        other => Err(no_attribute(other, "lower")),
    }
}

/// What `str.isspace()` calls whitespace: Unicode's White_Space plus the
/// four ASCII separators U+001C..U+001F.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `text.strip()`.
pub fn py_strip(text: &str) -> &str {
    text.trim_matches(is_py_space)
}

/// `text.split()`: runs of whitespace separate words; no empty words.
pub fn py_split(text: &str) -> Vec<&str> {
    text.split(is_py_space).filter(|w| !w.is_empty()).collect()
}

/// `value[key]` for a text key, where Python expects `value` to be a dict:
/// the item, a `KeyError` (whose text is the key's repr) when the dict
/// lacks it, or the `TypeError` any other type raises.
pub fn py_item<'a>(value: &'a Value, key: &str) -> Result<&'a Value, String> {
    match value {
        Value::Object(map) => lookup(map, key).ok_or_else(|| key_error(key)),
        Value::String(_) => Err("string indices must be integers, not 'str'".into()),
        Value::Array(_) => Err("list indices must be integers or slices, not str".into()),
        other => Err(format!(
            "'{}' object is not subscriptable",
            type_name(other)
        )),
    }
}

/// `value.strip()` for a value Python expects to be a `str`.
pub fn py_strip_value(value: &Value) -> Result<&str, String> {
    match value {
        Value::String(s) => Ok(py_strip(s)),
        other => Err(no_attribute(other, "strip")),
    }
}

/// `int(text)` for a `str`: surrounding whitespace, a sign, ASCII digits
/// with single underscores between them. Anything else raises CPython's
/// `ValueError` text. (CPython also reads non-ASCII decimal digits, and
/// integers beyond `i64`; neither occurs in API-Bank's ids.)
pub fn py_int(text: &str) -> Result<i64, String> {
    let invalid = || format!("invalid literal for int() with base 10: {}", repr_str(text));
    let body = py_strip(text);
    let (negative, digits) = match body.as_bytes().first() {
        Some(b'-') => (true, &body[1..]),
        Some(b'+') => (false, &body[1..]),
        _ => (false, body),
    };
    let well_formed = !digits.is_empty()
        && digits
            .split('_')
            .all(|run| !run.is_empty() && run.bytes().all(|b| b.is_ascii_digit()));
    if !well_formed {
        return Err(invalid());
    }
    let magnitude: i64 = digits.replace('_', "").parse().map_err(|_| invalid())?;
    Ok(if negative { -magnitude } else { magnitude })
}

/// `text.zfill(width)`: zeros on the left up to `width` characters, after
/// a leading sign.
pub fn py_zfill(text: &str, width: usize) -> String {
    let length = text.chars().count();
    if length >= width {
        return text.to_string();
    }
    let zeros = "0".repeat(width - length);
    match text.chars().next() {
        Some(sign @ ('+' | '-')) => format!("{sign}{zeros}{}", &text[1..]),
        _ => format!("{zeros}{text}"),
    }
}

#[cfg(test)]
mod python_text_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_strip_int_and_zfill_follow_python() {
        assert_eq!(py_item(&json!({"a": 1}), "a"), Ok(&json!(1)));
        assert_eq!(py_item(&json!({"a": 1}), "b").unwrap_err(), "'b'");
        assert_eq!(
            py_item(&json!("x"), "a").unwrap_err(),
            "string indices must be integers, not 'str'"
        );
        assert_eq!(
            py_item(&json!([1]), "a").unwrap_err(),
            "list indices must be integers or slices, not str"
        );
        assert_eq!(
            py_item(&json!(null), "a").unwrap_err(),
            "'NoneType' object is not subscriptable"
        );
        assert_eq!(py_strip_value(&json!(" a ")), Ok("a"));
        assert_eq!(
            py_strip_value(&json!(3)).unwrap_err(),
            "'int' object has no attribute 'strip'"
        );
        assert_eq!(py_int(" 12 "), Ok(12));
        assert_eq!(py_int("-1_0"), Ok(-10));
        assert_eq!(py_int("+7"), Ok(7));
        for bad in ["", "1__0", "_1", "1_", "a", "1.0", "- 1"] {
            assert_eq!(
                py_int(bad).unwrap_err(),
                format!("invalid literal for int() with base 10: {}", repr_str(bad))
            );
        }
        assert_eq!(py_zfill("23", 4), "0023");
        assert_eq!(py_zfill("+12", 4), "+012");
        assert_eq!(py_zfill("12345", 4), "12345");
        assert_eq!(py_zfill("", 2), "00");
    }
}

#[cfg(test)]
mod python_value_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equality_follows_python() {
        assert!(py_eq(&json!(1), &json!(1.0)));
        assert!(py_eq(&json!(true), &json!(1)));
        assert!(!py_eq(&json!("1"), &json!(1)));
        assert!(py_eq(
            &json!({"a": [1, 2.0], "b": null}),
            &json!({"b": null, "a": [1.0, 2]})
        ));
        assert!(!py_eq(&json!([1, 2]), &json!([2, 1])));
        assert!(!py_eq(&json!(u64::MAX), &json!(-1)));
        // Same keys in the same order or not, same answer; a missing key
        // or an unequal value is told apart either way.
        assert!(py_eq(&json!({"a": 1, "b": 2}), &json!({"a": 1.0, "b": 2})));
        assert!(!py_eq(&json!({"a": 1, "b": 2}), &json!({"a": 1, "c": 2})));
        assert!(!py_eq(&json!({"a": 1, "b": 2}), &json!({"b": 1, "a": 2})));
        assert!(!py_eq(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 3})));
    }

    #[test]
    fn lookup_agrees_with_get_for_small_and_large_maps() {
        for size in [0, 1, 8, 9, 30] {
            let map: Map<String, Value> = (0..size).map(|i| (format!("k{i}"), json!(i))).collect();
            for key in ["k0", "k7", "k8", "k29", "nope", ""] {
                assert_eq!(lookup(&map, key), map.get(key), "size {size} key {key}");
            }
        }
    }

    #[test]
    fn truth_and_string_methods_follow_python() {
        for falsy in [
            json!(null),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
            json!({}),
            json!(false),
        ] {
            assert!(!truthy(&falsy), "{falsy}");
        }
        assert!(truthy(&json!(" ")) && truthy(&json!([0])) && truthy(&json!(-1)));
        assert_eq!(
            lower(&json!(3)).unwrap_err(),
            "'int' object has no attribute 'lower'"
        );
        assert_eq!(lower(&json!("New YORK")).unwrap(), "new york");
        assert_eq!(py_strip("\u{1c} london\n"), "london");
        assert_eq!(py_split(" a\u{1f}b  c\t"), vec!["a", "b", "c"]);
    }
}

/// A value used as a key of a dict whose keys are all strings (Python's
/// `key in d`, `d[key]`): the string, `None` for a hashable value that can
/// never be such a key, and `unhashable type` for lists and dicts.
pub fn dict_key(key: &Value) -> Result<Option<&str>, String> {
    match key {
        Value::String(k) => Ok(Some(k)),
        Value::Array(_) | Value::Object(_) => Err(format!("unhashable type: '{}'", type_name(key))),
        _ => Ok(None),
    }
}

/// What starts a table key that stands for a Python value other than a
/// string (see [`py_key`]); no key read from a JSON database starts so.
const NON_TEXT_KEY: char = '\u{0}';

/// The table key for `key` in a dict whose keys a simulator writes from
/// argument values (ToolTalk keys accounts, and each user's records, by
/// whatever `username` was registered): a string is its own key; `None`,
/// booleans and numbers get a key no string has, one per Python-equal
/// value (`True`, `1` and `1.0` are one key, as in a Python dict); lists
/// and dicts are unhashable.
pub fn py_key(key: &Value) -> Result<std::borrow::Cow<'_, str>, String> {
    let canonical = match key {
        Value::String(k) => return Ok(std::borrow::Cow::Borrowed(k)),
        Value::Array(_) | Value::Object(_) => {
            return Err(format!("unhashable type: '{}'", type_name(key)))
        }
        Value::Null => "None".to_string(),
        Value::Bool(b) => u8::from(*b).to_string(),
        Value::Number(n) if !n.is_f64() => n.to_string(),
        Value::Number(n) => match n.as_f64() {
            // An integral float equals the int of its exact value (the
            // pattern 0.0 also takes -0.0, which `{:.0}` writes "-0").
            Some(0.0) => "0".to_string(),
            Some(x) if x.fract() == 0.0 => format!("{x:.0}"),
            Some(x) => python_float(x),
            None => n.to_string(),
        },
    };
    Ok(std::borrow::Cow::Owned(format!(
        "{NON_TEXT_KEY}{canonical}"
    )))
}

/// Whether a table key was made by [`py_key`] for a value other than a
/// string.
pub fn is_non_text_key(key: &str) -> bool {
    key.starts_with(NON_TEXT_KEY)
}

#[cfg(test)]
mod dict_key_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_strings_can_be_keys_and_containers_are_unhashable() {
        assert_eq!(dict_key(&json!("a")), Ok(Some("a")));
        assert_eq!(dict_key(&json!(1)), Ok(None));
        assert_eq!(dict_key(&json!(null)), Ok(None));
        assert_eq!(
            dict_key(&json!([1])).unwrap_err(),
            "unhashable type: 'list'"
        );
        assert_eq!(dict_key(&json!({})).unwrap_err(), "unhashable type: 'dict'");
    }

    #[test]
    fn python_equal_values_share_a_key_that_no_string_has() {
        let key = |v: Value| py_key(&v).map(|k| k.into_owned());
        assert_eq!(key(json!("5")).unwrap(), "5");
        for (a, b) in [
            (json!(true), json!(1)),
            (json!(1), json!(1.0)),
            (json!(false), json!(-0.0)),
            (json!(4.0), json!(4)),
        ] {
            assert_eq!(key(a.clone()), key(b.clone()), "{a} and {b}");
        }
        for (a, b) in [
            (json!(5), json!("5")),
            (json!(null), json!("None")),
            (json!(null), json!(0)),
            (json!(1.5), json!(1)),
            (json!(true), json!("True")),
        ] {
            assert_ne!(key(a.clone()), key(b.clone()), "{a} and {b}");
        }
        assert_eq!(key(json!(1e20)).unwrap(), "\u{0}100000000000000000000");
        assert_eq!(key(json!(-2.5)).unwrap(), "\u{0}-2.5");
        assert!(is_non_text_key(&key(json!(null)).unwrap()));
        assert!(is_non_text_key(&key(json!(1e-07)).unwrap()));
        assert!(!is_non_text_key(&key(json!("ann")).unwrap()));
        assert_eq!(key(json!(["a"])).unwrap_err(), "unhashable type: 'list'");
        assert_eq!(key(json!({"a": 1})).unwrap_err(), "unhashable type: 'dict'");
    }
}

/// A value Python calls a `str` method on: the text, or the
/// `AttributeError` text for any other type (`'int' object has no
/// attribute 'strip'`).
pub fn str_method<'a>(value: &'a Value, method: &str) -> Result<&'a str, String> {
    value.as_str().ok_or_else(|| no_attribute(value, method))
}

/// `value[key]` for a text key: the item of a dict, `KeyError` (its text
/// is the key's repr) when the dict lacks it, and Python's `TypeError` for
/// values that are not dicts.
pub fn subscript<'a>(value: &'a Value, key: &str) -> Result<&'a Value, String> {
    match value {
        Value::Object(map) => lookup(map, key).ok_or_else(|| key_error(key)),
        Value::Array(_) => Err("list indices must be integers or slices, not str".into()),
        Value::String(_) => Err("string indices must be integers, not 'str'".into()),
        other => Err(format!(
            "'{}' object is not subscriptable",
            type_name(other)
        )),
    }
}

/// `needle in container`: a key of a dict, an equal item of a list (Python
/// `==`), a substring of a string; Python's `TypeError` otherwise.
pub fn py_in(needle: &Value, container: &Value) -> Result<bool, String> {
    match container {
        Value::Object(map) => Ok(dict_key(needle)?.is_some_and(|k| lookup(map, k).is_some())),
        Value::Array(items) => Ok(items.iter().any(|item| py_eq(item, needle))),
        Value::String(text) => match needle {
            Value::String(part) => Ok(text.contains(part.as_str())),
            other => Err(format!(
                "'in <string>' requires string as left operand, not {}",
                type_name(other)
            )),
        },
        other => Err(format!(
            "argument of type '{}' is not iterable",
            type_name(other)
        )),
    }
}

#[cfg(test)]
mod python_helper_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn zfill_pads_after_the_sign() {
        assert_eq!(py_zfill("23", 4), "0023");
        assert_eq!(py_zfill("+5", 4), "+005");
        assert_eq!(py_zfill("12345", 4), "12345");
        assert_eq!(py_zfill("", 4), "0000");
    }

    #[test]
    fn subscripts_and_membership_raise_as_python_does() {
        assert_eq!(subscript(&json!({"a": 1}), "a"), Ok(&json!(1)));
        assert_eq!(subscript(&json!({"a": 1}), "b").unwrap_err(), "'b'");
        assert_eq!(
            subscript(&json!([1]), "a").unwrap_err(),
            "list indices must be integers or slices, not str"
        );
        assert_eq!(
            subscript(&json!(null), "a").unwrap_err(),
            "'NoneType' object is not subscriptable"
        );
        assert_eq!(py_in(&json!("q"), &json!([{"q": 1}, "q"])), Ok(true));
        assert_eq!(py_in(&json!("q"), &json!([{"q": 1}])), Ok(false));
        assert_eq!(py_in(&json!("am"), &json!("name")), Ok(true));
        assert_eq!(py_in(&json!("a"), &json!({"a": 0})), Ok(true));
        assert_eq!(py_in(&json!(1), &json!({"1": 0})), Ok(false));
        assert_eq!(
            py_in(&json!("a"), &json!(3)).unwrap_err(),
            "argument of type 'int' is not iterable"
        );
        assert_eq!(
            str_method(&json!(3), "strip").unwrap_err(),
            "'int' object has no attribute 'strip'"
        );
    }
}
