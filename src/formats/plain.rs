//! serde_json's error messages in plain words: a maintainer who mistyped a
//! bracket reads what to fix ("a `,` or `}` should come next") rather than
//! the parser's vocabulary ("expected `,` or `}`"). The file, line and
//! column are added by the caller; the raw message is kept for anything
//! not listed here.

/// The plain-words version of a serde_json message (without serde_json's
/// trailing " at line L column C").
pub fn plain_json_message(raw: &str) -> String {
    let fixed = match raw {
        "EOF while parsing a value" => "the text ends where a value should come",
        "EOF while parsing a list" => "the text ends inside a list: a `]` is missing",
        "EOF while parsing an object" => "the text ends inside an object: a `}` is missing",
        "EOF while parsing a string" => "the text ends inside a string: a closing `\"` is missing",
        "expected value" => {
            "a JSON value should start here (text goes in double quotes; \
             true, false and null are lower-case)"
        }
        "expected ident" => "not a JSON word: write true, false or null, in lower case",
        "expected `:`" => "a `:` should come after the key",
        "expected `,` or `]`" => "a `,` or `]` should come next (is a comma missing?)",
        "expected `,` or `}`" => "a `,` or `}` should come next (is a comma missing?)",
        "key must be a string" => "an object key must be text in double quotes",
        "trailing comma" => "JSON allows no comma before a closing `]` or `}`",
        "trailing characters" => "there is more text after the end of the JSON value",
        "invalid number" => "not a valid JSON number",
        "number out of range" => "the number is too large",
        "invalid escape" => "not a valid escape after `\\` in a string",
        "invalid unicode code point" => "not a valid `\\u` escape in a string",
        "control character (\\u0000-\\u001F) found while parsing a string" => {
            "a line break or control character inside a string: write it as `\\n` or `\\t`"
        }
        "recursion limit exceeded" => "the JSON is nested too deeply",
        _ => return reworded(raw).unwrap_or_else(|| raw.to_string()),
    };
    fixed.to_string()
}

/// The messages with values in them: what was found and what was expected,
/// the expectation first.
fn reworded(raw: &str) -> Option<String> {
    if let Some(rest) = raw.strip_prefix("invalid type: ") {
        let (found, expected) = rest.split_once(", expected ")?;
        return Some(format!("expected {expected}, found {}", found_value(found)));
    }
    if let Some(rest) = raw.strip_prefix("invalid value: ") {
        let (found, expected) = rest.split_once(", expected ")?;
        return Some(format!("expected {expected}, found {}", found_value(found)));
    }
    if let Some(field) = raw.strip_prefix("missing field ") {
        return Some(format!("the field {field} is missing"));
    }
    if let Some(field) = raw.strip_prefix("duplicate field ") {
        return Some(format!("the field {field} is given twice"));
    }
    if let Some(rest) = raw.strip_prefix("unknown variant ") {
        let (variant, expected) = rest.split_once(", expected ")?;
        return Some(format!("{variant} is not {expected}"));
    }
    if let Some(rest) = raw.strip_prefix("unknown field ") {
        let (field, expected) = rest.split_once(", expected ")?;
        return Some(format!(
            "{field} is not a known field (expected {expected})"
        ));
    }
    None
}

/// serde's description of a found value ("integer `1`", "string \"x\"",
/// "map") as a phrase ("the integer 1", "the text \"x\"", "an object").
fn found_value(found: &str) -> String {
    let (kind, value) = match found.split_once(' ') {
        Some((kind, value)) => (kind, Some(value.trim_matches('`'))),
        None => (found, None),
    };
    let noun = match kind {
        "integer" => "the integer",
        "floating" => {
            return format!(
                "the number {}",
                found
                    .trim_start_matches("floating point ")
                    .trim_matches('`')
            )
        }
        "string" => "the text",
        "boolean" => "the boolean",
        "map" => return "an object".into(),
        "sequence" => return "a list".into(),
        "null" | "unit" => return "null".into(),
        _ => return found.to_string(),
    };
    match value {
        Some(value) => format!("{noun} {value}"),
        None => noun.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message_for(text: &str) -> String {
        let raw = serde_json::from_str::<serde_json::Value>(text)
            .unwrap_err()
            .to_string();
        let raw = &raw[..raw.rfind(" at line ").unwrap()];
        plain_json_message(raw)
    }

    #[test]
    fn syntax_errors_say_what_to_fix() {
        assert_eq!(
            message_for("{\"a\": 1 \"b\": 2}"),
            "a `,` or `}` should come next (is a comma missing?)"
        );
        assert_eq!(
            message_for("{\"a\": 1"),
            "the text ends inside an object: a `}` is missing"
        );
        assert_eq!(
            message_for("{\"a\": 1,}"),
            "JSON allows no comma before a closing `]` or `}`"
        );
        assert_eq!(
            message_for("{'a': 1}"),
            "an object key must be text in double quotes"
        );
        assert_eq!(
            message_for("[1 2]"),
            "a `,` or `]` should come next (is a comma missing?)"
        );
        assert_eq!(
            message_for("[1, 2"),
            "the text ends inside a list: a `]` is missing"
        );
        assert_eq!(
            message_for("[1, 2,"),
            "the text ends where a value should come"
        );
        assert_eq!(message_for("{\"a\": True}"), "a JSON value should start here (text goes in double quotes; true, false and null are lower-case)");
        assert_eq!(
            message_for("{} {}"),
            "there is more text after the end of the JSON value"
        );
        assert_eq!(
            message_for("\"abc"),
            "the text ends inside a string: a closing `\"` is missing"
        );
        assert_eq!(message_for("{\"a\" 1}"), "a `:` should come after the key");
    }

    #[test]
    fn type_errors_put_the_expectation_first() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Named {
            name: String,
        }
        let raw = |text: &str| {
            let raw = serde_json::from_str::<Named>(text).unwrap_err().to_string();
            plain_json_message(&raw[..raw.rfind(" at line ").unwrap()])
        };
        assert_eq!(
            raw("{\"name\": 1}"),
            "expected a string, found the integer 1"
        );
        assert_eq!(raw("{\"name\": [1]}"), "expected a string, found a list");
        assert_eq!(raw("{\"name\": {}}"), "expected a string, found an object");
        assert_eq!(raw("{\"name\": null}"), "expected a string, found null");
        assert_eq!(
            raw("{\"name\": 1.5}"),
            "expected a string, found the number 1.5"
        );
        assert_eq!(raw("{}"), "the field `name` is missing");
    }

    #[test]
    fn an_unlisted_message_is_kept() {
        assert_eq!(plain_json_message("something new"), "something new");
    }
}
