use std::sync::OnceLock;

use regex::Regex;

use crate::grounding::when;
use crate::json::tree::Json;
use crate::lint::registry::{Check, FileInput};
use crate::lint::Diagnostic;
use crate::suite::{ArgumentEncoding, ParamSpec, ParamType, ValueFormat};

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
        let encoding = view.encoding();
        for (name, value) in call.arguments {
            let Some(param) = tool.parameter(name) else {
                continue;
            };
            let (problem, help) = match problem(encoding, param, value) {
                Some(problem) => {
                    let expected = expected(encoding, param);
                    let help = if value.is_null() {
                        format!("give {expected}, or leave the argument out")
                    } else {
                        format!("write {expected}")
                    };
                    (Some(problem), help)
                }
                None => (
                    list_left_as_text(encoding, param, value, call.converted, name),
                    format!(
                        "write it in the line's param_dict as a JSON array, such as [{{\"{}\": ...}}]: the API then receives the list",
                        param.fields.first().map_or("name", |f| f.name)
                    ),
                ),
            };
            if let Some(problem) = problem {
                out.push(
                    Diagnostic::new(
                        NAME,
                        format!("`{}` argument `{name}`: {problem}", tool.name),
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

/// An API-Bank list of objects written as text that no recording shows
/// the API received as a list. The reference's call reader keeps
/// `[...]` as its text, and its `ToolManager.api_call` hands a list
/// parameter on as given (its first release parsed the text; the one
/// its evaluator runs, since November 2023, does not), so the API walks
/// the text's characters and raises (RecordHealthData: "The health data
/// has invalid format."). Upstream recordings were made by the first
/// release: their `result.input` holds the list, and they replay from it.
fn list_left_as_text(
    encoding: ArgumentEncoding,
    param: &ParamSpec,
    value: &Json<'_>,
    converted: Option<&crate::json::tree::Object<'_>>,
    name: &str,
) -> Option<String> {
    let (ArgumentEncoding::PythonText, ParamType::Array(ParamType::Object), Json::String(_)) =
        (encoding, param.ty, value)
    else {
        return None;
    };
    let received_a_list = converted
        .and_then(|input| input.get(name))
        .is_some_and(|v| v.as_array().is_some());
    (!received_a_list).then(|| {
        "a list of objects written as text reaches the API as text (the reference's \
         api_call passes a list parameter on unparsed), so the call can only raise"
            .to_owned()
    })
}

/// What a value of `param` looks like, with an example, for help lines.
pub(crate) fn expected(encoding: ArgumentEncoding, param: &ParamSpec) -> String {
    if !param.enum_values.is_empty() {
        let allowed: Vec<String> = param.enum_values.iter().map(|v| format!("{v:?}")).collect();
        return format!("one of {}", allowed.join(", "));
    }
    let example = match param.format {
        ValueFormat::Timestamp => Some("\"2023-09-12 14:00:00\""),
        ValueFormat::Date => Some("\"2023-09-12\""),
        ValueFormat::Time => Some("\"14:00:00\""),
        ValueFormat::MonthDay => Some("\"09-12\""),
        ValueFormat::Email => Some("\"name@example.com\""),
        ValueFormat::Phone => Some("\"708-340-0190\""),
        ValueFormat::Any | ValueFormat::Id | ValueFormat::Token => None,
    };
    if let Some(example) = example {
        return format!("a string like {example}");
    }
    if encoding == ArgumentEncoding::PythonText {
        if let Some(text) = python_text_example(param.ty) {
            return text.to_owned();
        }
    }
    match param.ty {
        ParamType::String => "a JSON string".to_owned(),
        ParamType::Integer => "a whole number, without quotes".to_owned(),
        ParamType::Number => "a number, without quotes".to_owned(),
        ParamType::Boolean => "true or false, without quotes".to_owned(),
        ParamType::Object => "a JSON object".to_owned(),
        ParamType::Array(inner) => format!("a JSON array of {}s", inner.json_name()),
    }
}

/// How a value of `ty` is typed as text, with an example.
fn python_text_example(ty: ParamType) -> Option<&'static str> {
    match ty {
        ParamType::String => Some("a string"),
        ParamType::Integer => Some("a whole number, such as \"2\""),
        ParamType::Boolean => Some("\"True\" or \"False\""),
        ParamType::Array(ParamType::String) => {
            Some("a list of strings, such as \"['John', 'Mary']\"")
        }
        ParamType::Array(ParamType::Object) => Some("a list of objects, such as \"[{...}]\""),
        _ => None,
    }
}

/// The Python name of the type text converts to.
fn python_name(ty: ParamType) -> Option<&'static str> {
    match ty {
        ParamType::String => Some("str"),
        ParamType::Integer => Some("int"),
        ParamType::Boolean => Some("bool"),
        ParamType::Array(ParamType::String) => Some("list of str"),
        ParamType::Array(ParamType::Object) => Some("list of objects"),
        _ => None,
    }
}

/// What is wrong with `value` for `param`, if anything.
pub fn problem(encoding: ArgumentEncoding, param: &ParamSpec, value: &Json<'_>) -> Option<String> {
    if value.is_null() {
        return param
            .required
            .then(|| "null for a required argument".to_owned());
    }
    if let Some(problem) = type_problem(encoding, param.ty, value) {
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

fn type_problem(encoding: ArgumentEncoding, ty: ParamType, value: &Json<'_>) -> Option<String> {
    let python = match encoding {
        ArgumentEncoding::PythonText => python_name(ty),
        ArgumentEncoding::Json => None,
    };
    let ok = match python {
        Some(_) => converts_from_text(ty, value),
        None => json_type_ok(ty, value),
    };
    if ok {
        return None;
    }
    let expected = match (python, ty) {
        (Some(name), _) => format!("a value that converts to {name}"),
        (None, ParamType::Array(inner)) => format!("an array of {}", inner.json_name()),
        (None, t) => format!("a JSON {}", t.json_name()),
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

/// Whether a value typed as text (or written as JSON) converts to `ty`.
fn converts_from_text(ty: ParamType, value: &Json<'_>) -> bool {
    match (ty, value) {
        (ParamType::String, v) => v.is_string(),
        (ParamType::Integer, Json::String(s)) => s.trim().parse::<i64>().is_ok(),
        (ParamType::Integer, v) => v.is_i64() || v.is_u64(),
        (ParamType::Boolean, Json::String(s)) => {
            matches!(s.trim(), "True" | "False" | "true" | "false")
        }
        (ParamType::Boolean, v) => v.is_boolean(),
        (ParamType::Array(ParamType::String), Json::String(s)) => python_str_list(s).is_some(),
        (ParamType::Array(ParamType::Object), Json::String(s)) => {
            let s = s.trim();
            s.starts_with('[') && s.ends_with(']')
        }
        (ParamType::Array(inner), Json::Array(_)) => json_type_ok(ParamType::Array(inner), value),
        _ => false,
    }
}

fn format_problem(format: ValueFormat, text: &str) -> Option<String> {
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
        ValueFormat::Timestamp => (
            re(
                &TIMESTAMP,
                r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$",
            )
            .is_match(text)
                && when::parse_timestamp(text).is_some(),
            "a timestamp %Y-%m-%d %H:%M:%S",
        ),
        ValueFormat::Date => (
            re(&DATE, r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$").is_match(text)
                && when::parse_date(text).is_some(),
            "a date %Y-%m-%d",
        ),
        ValueFormat::Time => (
            re(&TIME, r"^[0-9]{2}:[0-9]{2}:[0-9]{2}$").is_match(text)
                && chrono::NaiveTime::parse_from_str(text, "%H:%M:%S").is_ok(),
            "a time %H:%M:%S",
        ),
        ValueFormat::MonthDay => (
            re(&MONTH_DAY, r"^[0-9]{2}-[0-9]{2}$").is_match(text)
                && when::parse_month_day(text).is_some(),
            "a day of the year %m-%d",
        ),
        ValueFormat::Email => (
            re(&EMAIL, r"^[^@\s]+@[^@\s]+\.[^@\s]+$").is_match(text),
            "an email address",
        ),
        ValueFormat::Phone => (
            re(&PHONE, r"^[0-9]{3}-[0-9]{3}-[0-9]{4}$").is_match(text),
            "a phone number ddd-ddd-dddd",
        ),
        ValueFormat::Any | ValueFormat::Id | ValueFormat::Token => (true, ""),
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

    /// [`super::problem`] of a value written with `json!` as JSON.
    fn problem(param: &ParamSpec, value: &Value) -> Option<String> {
        super::problem(ArgumentEncoding::Json, param, &Json::from(value))
    }

    /// [`super::problem`] of a value written with `json!` as typed text.
    fn text_problem(param: &ParamSpec, value: &Value) -> Option<String> {
        super::problem(ArgumentEncoding::PythonText, param, &Json::from(value))
    }

    fn param(ty: ParamType, format: ValueFormat) -> ParamSpec {
        ParamSpec {
            format,
            ..ParamSpec::new("x", ty, "", true)
        }
    }

    #[test]
    fn json_types() {
        let int = param(ParamType::Integer, ValueFormat::Any);
        assert_eq!(problem(&int, &json!(3)), None);
        assert!(problem(&int, &json!("3")).is_some());
        assert!(problem(&int, &json!(3.5)).is_some());
        let list = param(ParamType::Array(&ParamType::String), ValueFormat::Any);
        assert_eq!(problem(&list, &json!(["a"])), None);
        assert!(problem(&list, &json!(["a", 1])).is_some());
        assert!(
            problem(&list, &json!(null)).is_some(),
            "null for a required argument"
        );
        let optional = ParamSpec {
            required: false,
            ..list
        };
        assert_eq!(problem(&optional, &json!(null)), None);
    }

    #[test]
    fn formats() {
        let ts = param(ParamType::String, ValueFormat::Timestamp);
        assert_eq!(problem(&ts, &json!("2023-09-12 14:00:00")), None);
        assert!(problem(&ts, &json!("2023-09-12T14:00:00")).is_some());
        assert!(problem(&ts, &json!("2023-02-30 14:00:00")).is_some());
        assert!(problem(&ts, &json!("2023-9-12 14:00:00")).is_some());
        let time = param(ParamType::String, ValueFormat::Time);
        assert_eq!(problem(&time, &json!("07:30:00")), None);
        assert!(problem(&time, &json!("7:30")).is_some());
        let email = param(ParamType::String, ValueFormat::Email);
        assert_eq!(problem(&email, &json!("a.b@c.com")), None);
        assert!(problem(&email, &json!("a.b at c.com")).is_some());
        let phone = param(ParamType::String, ValueFormat::Phone);
        assert_eq!(problem(&phone, &json!("708-340-0190")), None);
        assert!(problem(&phone, &json!("7083400190")).is_some());
    }

    #[test]
    fn enumerations() {
        let p = ParamSpec {
            enum_values: &["meeting", "event"],
            ..param(ParamType::String, ValueFormat::Any)
        };
        assert_eq!(problem(&p, &json!("event")), None);
        assert!(problem(&p, &json!("party"))
            .unwrap()
            .contains("\"meeting\""));
    }

    #[test]
    fn typed_text_values_convert() {
        let int = param(ParamType::Integer, ValueFormat::Any);
        assert_eq!(text_problem(&int, &json!("2")), None);
        assert_eq!(text_problem(&int, &json!(2)), None);
        assert!(text_problem(&int, &json!("two")).is_some());
        let b = param(ParamType::Boolean, ValueFormat::Any);
        assert_eq!(text_problem(&b, &json!("True")), None);
        assert!(text_problem(&b, &json!("yes")).is_some());
        let list = param(ParamType::Array(&ParamType::String), ValueFormat::Any);
        assert_eq!(text_problem(&list, &json!("['John', \"Jane\"]")), None);
        assert!(text_problem(&list, &json!("John, Jane")).is_some());
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
