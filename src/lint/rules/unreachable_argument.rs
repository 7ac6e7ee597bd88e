use std::collections::HashSet;

use serde_json::Value;

use crate::apibank::catalog::TOKEN_SOURCES;
use crate::apibank::ApiType;
use crate::grounding::{
    leaves_of, leaves_of_members, Evidence, Grounding, Reading, Source, ValueKind,
};
use crate::lint::registry::{Check, FileInput};
use crate::lint::rules::argument_type::python_str_list;
use crate::lint::view::{CallRef, Event, Flavor, Format, Param, Speaker, Tool, Type, View};
use crate::lint::Diagnostic;
use crate::sim::ParamType;

crate::declare_rule! {
    /// Finds argument values the assistant could not have known when it
    /// made the call: nothing said or shown before the call supports them.
    ///
    /// The evidence is what precedes the call: the user's earlier words,
    /// what the assistant is shown (location, timestamp, username when
    /// logged in), the arguments and results of earlier calls, and the
    /// assistant's own earlier words once the user has answered them. The
    /// last is a choice: a value the assistant proposes and the user then
    /// accepts ("Shall I set it for 3 pm?" / "Yes") is known, but one the
    /// assistant states with nothing behind it and acts on before the user
    /// says a word ("Let me set it for 3 pm." then the call) is not, so the
    /// assistant's words count only from the next user turn on. Both sides
    /// are normalised first: case, whitespace and punctuation; numbers in
    /// digits or words; clock times ("2pm", "2:00 PM", "two pm", "14:00"
    /// and "1400 hours" are all 14:00:00; "half past two", "quarter to
    /// seven"); dates ("September 12th", "9/12", "12 Sep", "March
    /// twenty-first"); times a mentioned duration away ("30 minutes
    /// before"). Relative dates are resolved against the anchor date (the
    /// conversation's timestamp, an API-Bank `GetToday` result, or "today
    /// is 2023-03-17" said in the dialogue) to the days they can mean:
    /// "Friday" is the coming or the last one, "next Friday" the coming one
    /// or next week's, "next week" the days of next week, "the 12th" the
    /// nearest 12th either side. Without an anchor only dates stated in
    /// full count. Lists are checked element by element.
    ///
    /// The ends of a search window (`QueryCalendar`'s `start_time` and
    /// `end_time`, `SearchInbox`'s and `SearchMessages`' `start_date` and
    /// `end_date`, `FindAlarms`' range, API-Bank's `QueryHealthData`) are
    /// the assistant's choice: any moment of a known day will do, and so
    /// does midnight or 23:59:59 of a day within a week of a known date or
    /// at either end of a month that holds one (the current month, the one
    /// named, "next month").
    ///
    /// Left alone: text the assistant composes (parameters the catalog
    /// marks as free text, such as a message body or an event description),
    /// enumerations and booleans (their values come from the tool's
    /// documentation), and tokens the world injects (ToolTalk's
    /// `session_token`). API-Bank tokens must come from an earlier
    /// `GetUserToken` (or `RegisterUser`) result.
    ///
    /// The rule prefers silence to a false alarm: a value counts as known
    /// whenever any reading of the text supports it.
    ///
    /// ## Why
    /// A gold call whose argument appears from nowhere rewards a model for
    /// guessing: the evaluator expects the invented value, so an assistant
    /// that asks, or uses what it was actually told, is scored wrong.
    ///
    /// ## Example
    /// ```text
    /// user: Set an alarm for the meeting tomorrow.
    /// assistant -> AddAlarm {"time": "07:30:00"}
    /// ```
    /// Nobody said when the meeting is: 07:30:00 is unreachable.
    name: "unreachable-argument",
    severity: Error,
    summary: "an argument value could not have been known at that point",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(view) = input.view else { return };
    // Nothing after the last call to a known tool is evidence for anything.
    let Some(last) = view
        .events
        .iter()
        .rposition(|e| matches!(e, Event::Call(c) if view.tool(c.api_name).is_some()))
    else {
        return;
    };
    let events = &view.events[..=last];
    // Every text before it, read in one batch, then taken in order; dates
    // and times are looked for only up to the last call that needs them.
    let mut texts: Vec<String> = view.shown.iter().map(|s| s.value.clone()).collect();
    let mut dates_upto = 0;
    for event in events {
        match event {
            Event::Say { text, .. } => texts.push((*text).to_owned()),
            Event::Call(call) => {
                if needs_dates(view, call) {
                    dates_upto = texts.len();
                }
                texts.push(leaves_of_members(call.arguments));
                texts.push(call.result.map(leaves_of).unwrap_or_default());
            }
        }
    }
    // The last call's own arguments and result come after every check.
    texts.truncate(texts.len() - 2);
    let readings = Reading::read_all(texts, dates_upto);
    let mut readings = readings.iter();
    let mut next = || readings.next().expect("one reading per text");
    let mut evidence = Evidence::new(view.now);
    for shown in &view.shown {
        evidence.add_reading(Source::Context(shown.name.to_owned()), next());
    }
    let mut tokens: HashSet<String> = HashSet::new();
    // The assistant's words, until the user answers them.
    let mut unanswered: Vec<(usize, &Reading)> = Vec::new();
    for (i, event) in events.iter().enumerate() {
        match event {
            Event::Say {
                speaker: Speaker::User,
                turn,
                ..
            } => {
                for (said_at, said) in unanswered.drain(..) {
                    evidence.add_reading(Source::Assistant { turn: said_at }, said);
                }
                evidence.add_reading(Source::User { turn: *turn }, next());
            }
            Event::Say {
                speaker: Speaker::Assistant,
                turn,
                ..
            } => unanswered.push((*turn, next())),
            Event::Call(call) => {
                if let Some(tool) = view.tool(call.api_name) {
                    check_call(view, &tool, call, &evidence, &tokens, out);
                }
                if i < last {
                    let (arguments, result) = (next(), next());
                    learn(view, call, (arguments, result), &mut evidence, &mut tokens);
                }
            }
        }
    }
}

/// Whether judging a call's arguments needs the dates and times the
/// evidence mentions (a date, a time, or a month name as text).
fn needs_dates(view: &View<'_>, call: &CallRef<'_>) -> bool {
    let Some(tool) = view.tool(call.api_name) else {
        return false;
    };
    call.arguments.iter().any(|(name, value)| {
        let Some(kind) = tool.param(name).as_ref().and_then(kind_of) else {
            return false;
        };
        match kind {
            ValueKind::Text => text_leaves(value).any(|s| {
                s.trim().len() >= 3
                    && crate::grounding::when::month_number(&s.trim().to_lowercase()).is_some()
            }),
            ValueKind::Exact | ValueKind::Number => false,
            _ => true,
        }
    })
}

/// The strings in a value (itself, or a list's elements, or an API-Bank
/// list written as text).
fn text_leaves(value: &Value) -> Box<dyn Iterator<Item = &str> + '_> {
    match value {
        Value::String(s) => {
            Box::new(std::iter::once(s.as_str()).chain(s.split(['\'', '"', ',', '[', ']'])))
        }
        Value::Array(items) => Box::new(items.iter().flat_map(text_leaves)),
        _ => Box::new(std::iter::empty()),
    }
}

fn check_call(
    view: &View<'_>,
    tool: &Tool,
    call: &CallRef<'_>,
    evidence: &Evidence,
    tokens: &HashSet<String>,
    out: &mut Vec<Diagnostic>,
) {
    for (name, value) in call.arguments {
        if tool.is_injected(name) {
            continue;
        }
        let Some(param) = tool.param(name) else {
            continue;
        };
        if param.format == Format::Token {
            // Without any token handed out yet, `auth-order` reports the call.
            let given = value.as_str().unwrap_or_default();
            if !tokens.is_empty() && !tokens.contains(given) {
                out.push(
                    Diagnostic::new(
                        NAME,
                        format!(
                            "`{}` argument `{name}` = {value} is not a token an earlier GetUserToken returned",
                            tool.name()
                        ),
                    )
                    .call(call.turn, call.call)
                    .argument(name.clone())
                    .at(call.argument_anchor(name))
                    .help(format!("tokens handed out so far: {}", sorted(tokens))),
                );
            }
            continue;
        }
        let Some(kind) = kind_of(&param) else {
            continue;
        };
        let value = grounding_value(view, &param, name, value, call);
        let verdict = if param.bound {
            evidence.ground_bound(&value, kind)
        } else {
            evidence.ground(&value, kind)
        };
        if let Grounding::Unreachable { value: missing } = verdict {
            let shown = if value.is_array() {
                format!("element {missing:?} of {value}")
            } else {
                value.to_string()
            };
            let help = match evidence.closest(&missing, kind) {
                Some(c) => format!("closest text before the call: {:?} ({})", c.text, c.source),
                None => "nothing like it appears before the call".to_owned(),
            };
            out.push(
                Diagnostic::new(
                    NAME,
                    format!(
                        "`{}` argument `{name}` = {shown} appears nowhere before the call (turn {})",
                        tool.name(),
                        call.turn
                    ),
                )
                .call(call.turn, call.call)
                .argument(name.clone())
                .at(call.argument_anchor(name))
                .help(help),
            );
        }
    }
}

/// How to read a parameter's values; None for those left alone.
fn kind_of(param: &Param) -> Option<ValueKind> {
    if param.free_text || !param.enum_values.is_empty() {
        return None;
    }
    match param.format {
        Format::Timestamp => return Some(ValueKind::Timestamp),
        Format::Date => return Some(ValueKind::Date),
        Format::Time => return Some(ValueKind::Time),
        Format::MonthDay => return Some(ValueKind::MonthDay),
        Format::Email | Format::Phone | Format::Id => return Some(ValueKind::Exact),
        Format::Token => return None,
        Format::Any => {}
    }
    match param.ty {
        Type::Json(ParamType::Integer | ParamType::Number) | Type::ApiBank(ApiType::Int) => {
            Some(ValueKind::Number)
        }
        Type::Json(ParamType::String) | Type::ApiBank(ApiType::Str | ApiType::StrList) => {
            Some(ValueKind::Text)
        }
        Type::Json(ParamType::Array(inner)) => match inner {
            ParamType::String => Some(ValueKind::Text),
            ParamType::Integer | ParamType::Number => Some(ValueKind::Number),
            _ => None,
        },
        _ => None,
    }
}

/// API-Bank lists are written as Python literals: judge their elements.
fn grounding_value(
    view: &View<'_>,
    param: &Param,
    name: &str,
    value: &Value,
    call: &CallRef<'_>,
) -> Value {
    if view.flavor != Flavor::ApiBank || param.ty != Type::ApiBank(ApiType::StrList) {
        return value.clone();
    }
    if let Some(converted) = call
        .converted
        .and_then(|c| c.get(name))
        .filter(|v| v.is_array())
    {
        return converted.clone();
    }
    match value.as_str().and_then(python_str_list) {
        Some(items) => Value::from(items),
        None => value.clone(),
    }
}

/// After a call: its arguments and result become evidence.
fn learn(
    view: &View<'_>,
    call: &CallRef<'_>,
    (arguments, result_text): (&Reading, &Reading),
    evidence: &mut Evidence,
    tokens: &mut HashSet<String>,
) {
    let api = call.api_name.to_owned();
    evidence.add_reading(
        Source::Request {
            turn: call.turn,
            api: api.clone(),
        },
        arguments,
    );
    if let Some(result) = call.result {
        evidence.add_reading(
            Source::Result {
                turn: call.turn,
                api,
            },
            result_text,
        );
        if view.flavor == Flavor::ApiBank {
            if TOKEN_SOURCES.contains(&call.api_name) {
                if let Some(token) = result.get("token").and_then(Value::as_str) {
                    tokens.insert(token.to_owned());
                }
            }
            if call.api_name == "GetToday" {
                if let Some(date) = result
                    .as_str()
                    .and_then(|s| crate::grounding::when::parse_date(s.get(..10).unwrap_or(s)))
                {
                    evidence.set_today(date);
                }
            }
        }
    }
}

fn sorted(tokens: &HashSet<String>) -> String {
    let mut list: Vec<&String> = tokens.iter().collect();
    list.sort();
    list.iter()
        .map(|t| format!("{t:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}
