use std::sync::OnceLock;

use regex::Regex;

use crate::grounding::when;
use crate::json::tree::Json;
use crate::lint::registry::{Check, FileInput};
use crate::lint::view::{Format, Param, Type};
use crate::lint::Diagnostic;
use crate::suite::ParamType;
use crate::suites::apibank::ApiType;

crate::declare_rule! {
    /// Finds argument values of the wrong kind for the tool's spec: the
    /// wrong JSON type, a value outside an enumeration, or a string that
    /// breaks the format the spec asks for (`%Y-%m-%d %H:%M:%S` timestamps,
    /// `%Y-%m-%d` dates, `%H:%M:%S` times, email addresses, `ddd-ddd-dddd`
    /// phone numbers). API-Bank dialogues record every value as the model
    /// typed it, so there the check is whether the text converts to the
    /// declared type (`"2"` is a fine `int`, `"two"` is not).
    ///
    /// ## Why
    /// The simulators parse these values; a malformed one makes the tool
    /// raise, and a model trained or prompted on such a call learns the
    /// wrong format.
    ///
    /// ## Example
    /// ```json
    /// {"api_name": "CreateEvent", "parameters": {"start_time": "2023-09-12T14:00", ...}}
    /// ```
    /// `start_time` must look like `2023-09-12 14:00:00`.
    name: "argument-type",
    severity: Error,
    summary: "an argument has the wrong type, enum value or format",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(view) = input.view else { return };
    for call in view.calls() {
        let Some(tool) = view.tool(call.api_name) else {
            continue;
        };
        for (name, value) in call.arguments {
            let Some(param) = tool.param(name) else {
                continue;
            };
            if let Some(problem) = problem(&param, value) {
                let help = if value.is_null() {
                    format!("give {}, or leave the argument out", expected(&param))
                } else {
                    format!("write {}", expected(&param))
                };
                out.push(
                    Diagnostic::new(
                        NAME,
                        format!("`{}` argument `{name}`: {problem}", tool.name()),
                    )
                    .call(call.turn, call.call)
                    .argument(name)
                    .at(call.argument_anchor(name))
                    .help(help),
                );
            }
        }
    }
}

/// What a value of `param` looks like, with an example, for help lines.
pub(crate) fn expected(param: &Param) -> String {
    if !param.enum_values.is_empty() {
        let allowed: Vec<String> = param.enum_values.iter().map(|v| format!("{v:?}")).collect();
        return format!("one of {}", allowed.join(", "));
    }
    let example = match param.format {
        Format::Timestamp => Some("\"2023-09-12 14:00:00\""),
        Format::Date => Some("\"2023-09-12\""),
        Format::Time => Some("\"14:00:00\""),
        Format::MonthDay => Some("\"09-12\""),
        Format::Email => Some("\"name@example.com\""),
        Format::Phone => Some("\"708-340-0190\""),
        Format::Any | Format::Id | Format::Token => None,
    };
    if let Some(example) = example {
        return format!("a string like {example}");
    }
    match param.ty {
        Type::Json(ParamType::String) => "a JSON string".to_owned(),
        Type::Json(ParamType::Integer) => "a whole number, without quotes".to_owned(),
        Type::Json(ParamType::Number) => "a number, without quotes".to_owned(),
        Type::Json(ParamType::Boolean) => "true or false, without quotes".to_owned(),
        Type::Json(ParamType::Object) => "a JSON object".to_owned(),
        Type::Json(ParamType::Array(inner)) => {
            format!("a JSON array of {}s", inner.json_name())
        }
        Type::ApiBank(ApiType::Str) => "a string".to_owned(),
        Type::ApiBank(ApiType::Int) => "a whole number, such as \"2\"".to_owned(),
        Type::ApiBank(ApiType::Bool) => "\"True\" or \"False\"".to_owned(),
        Type::ApiBank(ApiType::StrList) => {
            "a list of strings, such as \"['John', 'Mary']\"".to_owned()
        }
        Type::ApiBank(ApiType::ObjectList) => "a list of objects, such as \"[{...}]\"".to_owned(),
    }
}

/// What is wrong with `value` for `param`, if anything.
pub fn problem(param: &Param, value: &Json<'_>) -> Option<String> {
    if value.is_null() {
        return param
            .required
            .then(|| "null for a required argument".to_owned());
    }
    if let Some(problem) = type_problem(param.ty, value) {
        return Some(problem);
    }
    if !param.enum_values.is_empty() {
        if let Some(s) = value.as_str() {
            if !param.enum_values.contains(&s) {
                let allowed: Vec<String> =
                    param.enum_values.iter().map(|v| format!("{v:?}")).collect();
                return Some(format!("{s:?} is not one of {}", allowed.join(", ")));
            }
        }
    }
    let text = value.as_str()?;
    format_problem(param.format, text)
}

fn type_problem(ty: Type, value: &Json<'_>) -> Option<String> {
    let ok = match ty {
        Type::Json(t) => json_type_ok(t, value),
        Type::ApiBank(t) => apibank_type_ok(t, value),
    };
    if ok {
        return None;
    }
    let expected = match ty {
        Type::Json(ParamType::Array(inner)) => format!("an array of {}", inner.json_name()),
        Type::Json(t) => format!("a JSON {}", t.json_name()),
        Type::ApiBank(t) => format!("a value that converts to {}", t.name()),
    };
    Some(format!("expected {expected}, found {}", short(value)))
}

fn json_type_ok(ty: ParamType, value: &Json<'_>) -> bool {
    match ty {
        ParamType::String => value.is_string(),
        ParamType::Integer => value.is_i64() || value.is_u64(),
        ParamType::Number => value.is_number(),
        ParamType::Boolean => value.is_boolean(),
        ParamType::Object => value.is_object(),
        ParamType::Array(inner) => value
            .as_array()
            .is_some_and(|items| items.iter().all(|v| json_type_ok(*inner, v))),
    }
}

fn apibank_type_ok(ty: ApiType, value: &Json<'_>) -> bool {
    match (ty, value) {
        (ApiType::Str, v) => v.is_string(),
        (ApiType::Int, Json::String(s)) => s.trim().parse::<i64>().is_ok(),
        (ApiType::Int, v) => v.is_i64() || v.is_u64(),
        (ApiType::Bool, Json::String(s)) => {
            matches!(s.trim(), "True" | "False" | "true" | "false")
        }
        (ApiType::Bool, v) => v.is_boolean(),
        (ApiType::StrList, Json::String(s)) => python_str_list(s).is_some(),
        (ApiType::StrList, Json::Array(items)) => items.iter().all(Json::is_string),
        (ApiType::ObjectList, Json::String(s)) => {
            let s = s.trim();
            s.starts_with('[') && s.ends_with(']')
        }
        (ApiType::ObjectList, Json::Array(items)) => items.iter().all(Json::is_object),
        _ => false,
    }
}

fn format_problem(format: Format, text: &str) -> Option<String> {
    static TIMESTAMP: OnceLock<Regex> = OnceLock::new();
    static DATE: OnceLock<Regex> = OnceLock::new();
    static TIME: OnceLock<Regex> = OnceLock::new();
    static MONTH_DAY: OnceLock<Regex> = OnceLock::new();
    static EMAIL: OnceLock<Regex> = OnceLock::new();
    static PHONE: OnceLock<Regex> = OnceLock::new();
    let re = |cell: &'static OnceLock<Regex>, p: &str| -> &'static Regex {
        cell.get_or_init(|| Regex::new(p).expect("valid pattern"))
    };
    let (ok, wanted) = match format {
        Format::Timestamp => (
            re(
                &TIMESTAMP,
                r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$",
            )
            .is_match(text)
                && when::parse_timestamp(text).is_some(),
            "a timestamp %Y-%m-%d %H:%M:%S",
        ),
        Format::Date => (
            re(&DATE, r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$").is_match(text)
                && when::parse_date(text).is_some(),
            "a date %Y-%m-%d",
        ),
        Format::Time => (
            re(&TIME, r"^[0-9]{2}:[0-9]{2}:[0-9]{2}$").is_match(text)
                && chrono::NaiveTime::parse_from_str(text, "%H:%M:%S").is_ok(),
            "a time %H:%M:%S",
        ),
        Format::MonthDay => (
            re(&MONTH_DAY, r"^[0-9]{2}-[0-9]{2}$").is_match(text)
                && when::parse_month_day(text).is_some(),
            "a day of the year %m-%d",
        ),
        Format::Email => (
            re(&EMAIL, r"^[^@\s]+@[^@\s]+\.[^@\s]+$").is_match(text),
            "an email address",
        ),
        Format::Phone => (
            re(&PHONE, r"^[0-9]{3}-[0-9]{3}-[0-9]{4}$").is_match(text),
            "a phone number ddd-ddd-dddd",
        ),
        Format::Any | Format::Id | Format::Token => (true, ""),
    };
    (!ok).then(|| format!("{text:?} is not {wanted}"))
}

/// Read a Python list of strings as API-Bank dialogues write it:
/// `['John', "Mary"]`.
pub fn python_str_list(text: &str) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut items = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(quote) = chars.next() else { break };
        if quote != '\'' && quote != '"' {
            return None;
        }
        let mut item = String::new();
        loop {
            match chars.next()? {
                '\\' => item.push(chars.next()?),
                c if c == quote => break,
                c => item.push(c),
            }
        }
        items.push(item);
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.next() {
            None => break,
            Some(',') => continue,
            Some(_) => return None,
        }
    }
    Some(items)
}

fn short(value: &Json<'_>) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    /// [`super::problem`] of a value written with `json!`.
    fn problem(param: &Param, value: &Value) -> Option<String> {
        super::problem(param, &Json::from(value))
    }

    fn param(ty: Type, format: Format) -> Param {
        Param {
            name: "x",
            ty,
            required: true,
            enum_values: &[],
            format,
            free_text: false,
            bound: false,
        }
    }

    #[test]
    fn json_types() {
        let int = param(Type::Json(ParamType::Integer), Format::Any);
        assert_eq!(problem(&int, &json!(3)), None);
        assert!(problem(&int, &json!("3")).is_some());
        assert!(problem(&int, &json!(3.5)).is_some());
        let list = param(
            Type::Json(ParamType::Array(&ParamType::String)),
            Format::Any,
        );
        assert_eq!(problem(&list, &json!(["a"])), None);
        assert!(problem(&list, &json!(["a", 1])).is_some());
        assert!(
            problem(&list, &json!(null)).is_some(),
            "null for a required argument"
        );
        let optional = Param {
            required: false,
            ..list
        };
        assert_eq!(problem(&optional, &json!(null)), None);
    }

    #[test]
    fn formats() {
        let ts = param(Type::Json(ParamType::String), Format::Timestamp);
        assert_eq!(problem(&ts, &json!("2023-09-12 14:00:00")), None);
        assert!(problem(&ts, &json!("2023-09-12T14:00:00")).is_some());
        assert!(problem(&ts, &json!("2023-02-30 14:00:00")).is_some());
        assert!(problem(&ts, &json!("2023-9-12 14:00:00")).is_some());
        let time = param(Type::Json(ParamType::String), Format::Time);
        assert_eq!(problem(&time, &json!("07:30:00")), None);
        assert!(problem(&time, &json!("7:30")).is_some());
        let email = param(Type::Json(ParamType::String), Format::Email);
        assert_eq!(problem(&email, &json!("a.b@c.com")), None);
        assert!(problem(&email, &json!("a.b at c.com")).is_some());
        let phone = param(Type::Json(ParamType::String), Format::Phone);
        assert_eq!(problem(&phone, &json!("708-340-0190")), None);
        assert!(problem(&phone, &json!("7083400190")).is_some());
    }

    #[test]
    fn enumerations() {
        let p = Param {
            enum_values: &["meeting", "event"],
            ..param(Type::Json(ParamType::String), Format::Any)
        };
        assert_eq!(problem(&p, &json!("event")), None);
        assert!(problem(&p, &json!("party"))
            .unwrap()
            .contains("\"meeting\""));
    }

    #[test]
    fn apibank_values_convert_from_text() {
        let int = param(Type::ApiBank(ApiType::Int), Format::Any);
        assert_eq!(problem(&int, &json!("2")), None);
        assert_eq!(problem(&int, &json!(2)), None);
        assert!(problem(&int, &json!("two")).is_some());
        let b = param(Type::ApiBank(ApiType::Bool), Format::Any);
        assert_eq!(problem(&b, &json!("True")), None);
        assert!(problem(&b, &json!("yes")).is_some());
        let list = param(Type::ApiBank(ApiType::StrList), Format::Any);
        assert_eq!(problem(&list, &json!("['John', \"Jane\"]")), None);
        assert!(problem(&list, &json!("John, Jane")).is_some());
    }

    #[test]
    fn python_lists() {
        assert_eq!(
            python_str_list("['a', 'b c']"),
            Some(vec!["a".into(), "b c".into()])
        );
        assert_eq!(python_str_list("[]"), Some(vec![]));
        assert_eq!(python_str_list("['it\\'s']"), Some(vec!["it's".into()]));
        assert_eq!(python_str_list("[a, b]"), None);
        assert_eq!(python_str_list("'a'"), None);
    }
    #[test]
    fn the_rule_fires_on_a_malformed_value_with_an_example() {
        use crate::lint::rules::testing::{conversation, run_on};
        let with = |time| {
            conversation(&[
                ("user", "wake me at 7:30am", vec![]),
                (
                    "assistant",
                    "done",
                    vec![("AddAlarm", json!({"time": time}), json!({"alarm_id": "a1"}))],
                ),
            ])
        };
        assert!(run_on(&RULE, &with("07:30:00")).is_empty());
        let found = run_on(&RULE, &with("7:30"));
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].help.as_deref(),
            Some("write a string like \"14:00:00\"")
        );
    }
}
