use std::borrow::Cow;
use std::collections::HashSet;

use crate::grounding::{
    leaves_of, leaves_of_members, Evidence, Grounding, Reading, Source, ValueKind,
};
use crate::json::leaves::{leaves, Leaf};
use crate::json::pyliteral;
use crate::json::tree::Json;
use crate::lint::registry::{Check, FileInput};
use crate::lint::rules::auth_order::credentials;
use crate::lint::view::{CallRef, Event, Speaker, View};
use crate::lint::Diagnostic;
use crate::suite::{ArgumentEncoding, ParamSpec, ParamType, SessionEffect, ToolSpec, ValueFormat};

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
    /// twenty-first"). Relative dates are resolved against the anchor
    /// date (the conversation's timestamp, an API-Bank `GetToday` result,
    /// or "today is 2023-03-17" said in the dialogue) to the days they can
    /// mean: "Friday" is the coming or the last one, "next Friday" the
    /// coming one or next week's, "next week" the days of next week, "the
    /// 12th" the nearest 12th either side. Without an anchor only dates
    /// stated in full count.
    ///
    /// Times and dates computed from known ones are known when the
    /// dialogue states the offset: a known moment or day (said, shown, or
    /// in an earlier call's arguments or result) moved by a mentioned
    /// number of minutes, hours or days ("30 minutes later", "an hour
    /// before", "an hour and a half", "two and a half hours", "three
    /// nights from the 15th") or by one day ("the day before", "the day
    /// after", "the next day", "the following day"), across midnight too.
    /// A result no stated offset gives is unreachable: "move it later"
    /// does not make 10:45 of a 10:00 meeting known. The offset is not
    /// tied to the value it was said about: any mentioned offset from any
    /// known time counts.
    ///
    /// Lists and objects are walked down to their leaves, and every
    /// string and number inside (an attendee, a reading in a list of
    /// health records, a device in a scene) is judged on its own: a value
    /// the user never gave is invented even when the rest of its list or
    /// record was given. A leaf is read as the catalog describes its
    /// member (a device's `description` is composed text and left alone),
    /// or else by its shape: a timestamp, date or clock time as tools
    /// write them, a number, or words. Each unreachable leaf is reported
    /// with its path (`attendees[1]`, `health_data[1].value`) as the
    /// finding's argument, at the leaf's own line and column in ToolTalk
    /// JSON and in API-Bank lines that write the list as JSON. API-Bank
    /// dialogues mostly write lists and dicts as the text of a Python
    /// literal (`"[{'name': 'heart_rate', 'value': '80'}]"`, read as
    /// Python's `ast.literal_eval` reads it); the file has no place for a
    /// leaf inside that text, so the finding points at the text itself.
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
    /// In a file of tasks for a simulated user (tau2's `tasks.json`) each
    /// leaf of a gold action's arguments is looked for in what the agent
    /// could have learnt before it: what the simulated user is told (the
    /// task's `user_scenario`), the domain's policy (`policy.md` beside the
    /// file), the tool's own enumerations, the outputs of the earlier gold
    /// actions (replayed on a fresh copy of `db.json`), and what the read
    /// tools hand out for the ids and users the scenario names (the user's
    /// record, their orders or reservations, the products, the airports
    /// and the flights a search between the airports named lists): tau2's
    /// golds leave most lookups out. Found too: a date written as people
    /// say it ("May 24", "5/24"), an amount with a dollar sign or commas,
    /// an order number without its `#W`, and numbers computed from those
    /// told or handed out (the sum or difference of two, a multiple by a
    /// small count), each number of a `calculate` expression. An id that
    /// names no record is `unknown-id`'s finding, not this rule's.
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
    ///
    /// ```text
    /// user: Record my blood pressure, 126/84, and my heart rate.
    /// assistant -> RecordHealthData {"health_data": [
    ///     {"name": "blood_pressure", "value": "126/84"},
    ///     {"name": "heart_rate", "value": "91"}]}
    /// ```
    /// The heart rate was never given: `health_data[1].value` = "91" is
    /// unreachable, though the rest of the list is known.
    name: "unreachable-argument",
    severity: Error,
    summary: "an argument value could not have been known at that point",
    check: Check::File(check),
}

/// A tasks file: the values its suite found nowhere the agent could have
/// learnt them.
fn task_values(file: &crate::lint::document::TasksFile<'_>, out: &mut Vec<Diagnostic>) {
    use crate::lint::document::TasksFile;
    for task in &file.facts.tasks {
        for (a, action) in task.actions.iter().enumerate() {
            for value in &action.unexplained {
                out.push(
                    Diagnostic::new(
                        NAME,
                        format!(
                            "task {}: `{}` {} = {:?} is in nothing the user is told, the policy, an earlier output or a lookup of what they name",
                            task.id, action.name, value.argument, value.value
                        ),
                    )
                    .task(task.position, &task.id)
                    .call(task.position, a)
                    .argument(&value.argument)
                    .at(TasksFile::value_anchor(task.position, a, value))
                    .help("tell the user the value in the scenario, or add the gold action whose output gives it"),
                );
            }
        }
    }
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    if let crate::lint::Document::Tasks(file) = input.document {
        return task_values(file, out);
    }
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
    let mut texts: Vec<Cow<'_, str>> = view
        .shown
        .iter()
        .map(|s| Cow::Borrowed(s.value.as_str()))
        .collect();
    let mut dates_upto = 0;
    for event in events {
        match event {
            Event::Say { text, .. } => texts.push(Cow::Borrowed(text)),
            Event::Call(call) => {
                if needs_dates(view, call) {
                    dates_upto = texts.len();
                }
                texts.push(Cow::Owned(leaves_of_members(call.arguments)));
                texts.push(Cow::Owned(call.result.map(leaves_of).unwrap_or_default()));
            }
        }
    }
    // The last call's own arguments and result come after every check.
    texts.truncate(texts.len() - 2);
    let bytes = texts.iter().map(|t| t.len() + 3).sum();
    let readings = Reading::read_all(texts, dates_upto);
    let mut readings = readings.iter();
    let mut next = || readings.next().expect("one reading per text");
    let mut evidence = Evidence::new(view.now);
    evidence.reserve(bytes);
    for shown in &view.shown {
        evidence.add_reading(Source::Context(shown.name.to_owned()), next());
    }
    let mut tokens: HashSet<String> = HashSet::new();
    // The assistant's words, until the user answers them.
    let mut unanswered: Vec<(usize, &Reading<'_>)> = Vec::new();
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
                    check_call(view, tool, call, &evidence, &tokens, out);
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
    let mut needs = false;
    for_each_leaf(view, tool, call, |leaf| {
        needs |= match leaf.kind {
            ValueKind::Text => leaf.leaf.value.as_str().is_some_and(names_a_month),
            ValueKind::Exact | ValueKind::Number => false,
            _ => true,
        };
    });
    needs
}

/// Whether a text value may be a month name, which is judged against the
/// months the dialogue mentions.
fn names_a_month(s: &str) -> bool {
    let s = s.trim();
    (3..=10).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_alphabetic() || b == b'.')
        && crate::grounding::when::month_number(&s.to_ascii_lowercase()).is_some()
}

/// One value to judge: an argument, or a leaf inside a list or object
/// argument, and how to read it.
struct Judged<'l, 'v, 'a> {
    name: &'l str,
    param: &'l ParamSpec,
    leaf: &'l Leaf<'v, 'a>,
    kind: ValueKind,
    /// The argument was a Python literal written as text (API-Bank): the
    /// file holds no place for the leaf apart from the argument's own.
    in_text: bool,
}

/// Call `judge` for every value of the call's arguments that is judged:
/// each argument left alone is skipped, a scalar argument is one value,
/// and a list or object argument (as JSON, or as a Python literal written
/// as text) is walked down to its leaves.
fn for_each_leaf(
    view: &View<'_>,
    tool: &ToolSpec,
    call: &CallRef<'_>,
    mut judge: impl FnMut(Judged<'_, '_, '_>),
) {
    for (name, value) in call.arguments {
        if view.is_injected(tool, name) {
            continue;
        }
        let Some(param) = tool.parameter(name) else {
            continue;
        };
        if param.format == ValueFormat::Token || param.free_text || !param.enum_values.is_empty() {
            continue;
        }
        let (value, in_text) = structured_value(view, param, name, value, call);
        let mut one = |leaf: &Leaf<'_, '_>| {
            if let Some(kind) = leaf_kind(param, leaf) {
                judge(Judged {
                    name,
                    param,
                    leaf,
                    kind,
                    in_text,
                });
            }
        };
        match value.as_ref() {
            Json::Array(_) | Json::Object(_) => leaves(&value).iter().for_each(&mut one),
            // Most arguments are one value: judged without walking.
            scalar => one(&Leaf {
                steps: Vec::new(),
                value: scalar,
            }),
        }
    }
}

/// How to read a leaf of an argument: by the catalog's word on the member
/// it belongs to, by the parameter's own, or (inside objects the catalog
/// does not detail) by its shape; None for those left alone.
fn leaf_kind(param: &ParamSpec, leaf: &Leaf<'_, '_>) -> Option<ValueKind> {
    if let Some(field) = leaf
        .key()
        .and_then(|key| param.fields.iter().find(|f| f.name == key))
    {
        if field.free_text || !field.enum_values.is_empty() {
            return None;
        }
        return kind_of(field).or_else(|| ValueKind::of_shape(leaf.value));
    }
    match param.ty {
        ParamType::Object | ParamType::Array(ParamType::Object | ParamType::Array(_)) => {
            ValueKind::of_shape(leaf.value)
        }
        _ => kind_of(param),
    }
}

fn check_call(
    view: &View<'_>,
    tool: &ToolSpec,
    call: &CallRef<'_>,
    evidence: &Evidence,
    tokens: &HashSet<String>,
    out: &mut Vec<Diagnostic>,
) {
    for (name, value) in call.arguments {
        let Some(param) = tool.parameter(name) else {
            continue;
        };
        // Without any token handed out yet, `auth-order` reports the call.
        if param.format != ValueFormat::Token || view.is_injected(tool, name) || tokens.is_empty() {
            continue;
        }
        let given = value.as_str().unwrap_or_default();
        if !tokens.contains(given) {
            out.push(
                Diagnostic::new(
                    NAME,
                    format!(
                        "`{}` argument `{name}` = {value} is not a token {} returned",
                        tool.name,
                        view.suite.lint_help().credential_source
                    ),
                )
                .call(call.turn, call.call)
                .argument(name)
                .at(call.argument_anchor(name))
                .help(format!("tokens handed out so far: {}", sorted(tokens))),
            );
        }
    }
    for_each_leaf(view, tool, call, |judged| {
        let Judged {
            name,
            param,
            leaf,
            kind,
            in_text,
        } = judged;
        // A search window's ends are the assistant's choice; inside a
        // list or object nothing is.
        let verdict = if param.bound && leaf.steps.is_empty() {
            evidence.ground_bound(leaf.value, kind)
        } else {
            evidence.ground(leaf.value, kind)
        };
        let Grounding::Unreachable { value: missing } = verdict else {
            return;
        };
        let help = match evidence.closest(&missing, kind) {
            Some(c) => format!(
                "closest text before the call: {:?} ({})",
                c.text,
                source_words(&c.source, call.line.is_some())
            ),
            None => "nothing like it appears before the call".to_owned(),
        };
        let path = leaf.path(name);
        let at = if in_text {
            call.argument_anchor(name)
        } else {
            call.argument_part_anchor(name, &leaf.pointer())
        };
        out.push(
            Diagnostic::new(
                NAME,
                format!(
                    "`{}` argument `{path}` = {} appears nowhere before the call ({})",
                    tool.name,
                    leaf.value,
                    place_words(call.turn, call.line.is_some())
                ),
            )
            .call(call.turn, call.call)
            .argument(path)
            .at(at)
            .help(help),
        );
    });
}

/// How to read a parameter's values; None for those left alone (and for
/// lists and objects, whose leaves are read one by one).
fn kind_of(param: &ParamSpec) -> Option<ValueKind> {
    if param.free_text || !param.enum_values.is_empty() {
        return None;
    }
    match param.format {
        ValueFormat::Timestamp => return Some(ValueKind::Timestamp),
        ValueFormat::Date => return Some(ValueKind::Date),
        ValueFormat::Time => return Some(ValueKind::Time),
        ValueFormat::MonthDay => return Some(ValueKind::MonthDay),
        ValueFormat::Email | ValueFormat::Phone | ValueFormat::Id => return Some(ValueKind::Exact),
        ValueFormat::Token => return None,
        ValueFormat::Any => {}
    }
    match param.ty {
        ParamType::Integer | ParamType::Number => Some(ValueKind::Number),
        ParamType::String => Some(ValueKind::Text),
        ParamType::Array(inner) => match inner {
            ParamType::String => Some(ValueKind::Text),
            ParamType::Integer | ParamType::Number => Some(ValueKind::Number),
            _ => None,
        },
        _ => None,
    }
}

/// A list or object argument written as the text of a Python literal (as
/// API-Bank dialogues write them) read as the value it stands for, and
/// whether it was; any other value as it is.
fn structured_value<'v>(
    view: &View<'_>,
    param: &ParamSpec,
    name: &str,
    value: &'v Json<'v>,
    call: &CallRef<'v>,
) -> (Cow<'v, Json<'v>>, bool) {
    let structured = matches!(param.ty, ParamType::Array(_) | ParamType::Object);
    let Some(text) = value.as_str().filter(|_| structured) else {
        return (Cow::Borrowed(value), false);
    };
    if view.encoding() != ArgumentEncoding::PythonText {
        return (Cow::Borrowed(value), false);
    }
    let is_structured = |v: &Json<'_>| v.is_array() || v.is_object();
    if let Some(read) = pyliteral::parse(text).filter(is_structured) {
        return (Cow::Owned(read), true);
    }
    // What the recording says the tool was given, when the text is no
    // literal this reader knows.
    match call
        .converted
        .and_then(|c| c.get(name))
        .filter(|v| is_structured(v))
    {
        Some(converted) => (Cow::Borrowed(converted), true),
        None => (Cow::Borrowed(value), false),
    }
}

/// Where a finding's message places a turn: `turn 3` in a conversation
/// (as its `index` numbers it), `line 4` (1-based, as an editor numbers
/// it) in a dialogue written a turn a line, whose turns are its lines.
fn place_words(turn: usize, lines: bool) -> String {
    match lines {
        true => format!("line {}", turn + 1),
        false => format!("turn {turn}"),
    }
}

/// Where the closest text came from, its turn named as [`place_words`]
/// names it.
fn source_words(source: &Source, lines: bool) -> String {
    match source {
        Source::Context(what) => what.clone(),
        Source::User { turn } => format!("user, {}", place_words(*turn, lines)),
        Source::Assistant { turn } => format!("assistant, {}", place_words(*turn, lines)),
        Source::Request { turn, api } => {
            format!("arguments of {api}, {}", place_words(*turn, lines))
        }
        Source::Result { turn, api } => format!("result of {api}, {}", place_words(*turn, lines)),
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
        let tool = view.tool(call.api_name);
        if tool.is_some_and(|t| t.session == SessionEffect::Opens) {
            tokens.extend(credentials(result).map(str::to_owned));
        }
        if tool.is_some_and(|t| t.tells_today) {
            if let Some(date) = result
                .as_str()
                .and_then(|s| crate::grounding::when::parse_date(s.get(..10).unwrap_or(s)))
            {
                evidence.set_today(date);
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{api, conversation, dialogue, run, run_on};

    fn alarm_after(user: &str, time: &str) -> Vec<Diagnostic> {
        run_on(
            &RULE,
            &conversation(&[
                ("user", user, vec![]),
                (
                    "assistant",
                    "done",
                    vec![("AddAlarm", json!({"time": time}), json!({"alarm_id": "a1"}))],
                ),
            ]),
        )
    }

    #[test]
    fn a_value_nobody_gave_is_caught_and_one_said_is_not() {
        let found = alarm_after("set an alarm before my meeting", "09:15:00");
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].argument.as_deref(), Some("time"));
        assert!(alarm_after("set an alarm at 9:15 am", "09:15:00").is_empty());
        assert!(alarm_after("set an alarm at quarter past nine am", "09:15:00").is_empty());
    }

    #[test]
    fn the_assistants_words_count_once_the_user_answers_them() {
        let user = |text: &str| json!({"role": "User", "text": text});
        let ai = |text: &str| json!({"role": "AI", "text": text});
        let login = api(
            "GetUserToken",
            json!({"username": "lwong", "password": "tulip"}),
            json!({"token": "t1"}),
        );
        let alarm = api(
            "AddAlarm",
            json!({"token": "t1", "time": "2023-03-16 15:00:00"}),
            json!("success"),
        );
        // Proposed, then accepted: known.
        let accepted = dialogue(&[
            user("Set an alarm for my flight. I'm lwong, password tulip."),
            login.clone(),
            ai("Shall I set it for 2023-03-16 at 3 pm?"),
            user("Yes please."),
            alarm.clone(),
        ]);
        assert!(run(&RULE, "d.jsonl", &accepted).is_empty());
        // Stated and acted on before the user says a word: not known.
        let stated = dialogue(&[
            user("Set an alarm for my flight. I'm lwong, password tulip."),
            login,
            ai("I'll set it for 2023-03-16 at 3 pm."),
            alarm,
        ]);
        let found = run(&RULE, "d.jsonl", &stated);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].argument.as_deref(), Some("time"));
    }

    #[test]
    fn search_windows_are_the_assistants_choice_within_reason() {
        let query = |end: &str| {
            run_on(
                &RULE,
                &conversation(&[
                    ("user", "delete everything about Paris", vec![]),
                    (
                        "assistant",
                        "done",
                        vec![(
                            "QueryCalendar",
                            json!({"start_time": "2023-09-11 00:00:00", "end_time": end}),
                            json!([]),
                        )],
                    ),
                ]),
            )
        };
        assert!(
            query("2023-09-30 23:59:59").is_empty(),
            "the end of this month"
        );
        assert!(query("2023-09-17 23:59:59").is_empty(), "a week from today");
        let found = query("2023-12-31 23:59:59");
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].argument.as_deref(), Some("end_time"));
        // The same moment as an event's end is no window.
        let event = run_on(
            &RULE,
            &conversation(&[
                ("user", "add a Paris trip event today", vec![]),
                (
                    "assistant",
                    "done",
                    vec![(
                        "CreateEvent",
                        json!({"name": "Paris trip", "event_type": "event",
                               "start_time": "2023-09-11 00:00:00", "end_time": "2023-09-30 23:59:59"}),
                        json!({"event_id": "e1"}),
                    )],
                ),
            ]),
        );
        assert_eq!(event.len(), 1, "{event:#?}");
    }

    #[test]
    fn apibank_tokens_come_from_get_user_token() {
        let user =
            json!({"role": "User", "text": "I'm lwong, password tulip; what is my balance?"});
        let login = api(
            "GetUserToken",
            json!({"username": "lwong", "password": "tulip"}),
            json!({"token": "t1"}),
        );
        let good = dialogue(&[
            user.clone(),
            login.clone(),
            api("QueryBalance", json!({"token": "t1"}), json!(10)),
        ]);
        assert!(run(&RULE, "d.jsonl", &good).is_empty());
        let bad = dialogue(&[
            user,
            login,
            api("QueryBalance", json!({"token": "t2"}), json!(10)),
        ]);
        let found = run(&RULE, "d.jsonl", &bad);
        assert_eq!(found.len(), 1);
        assert!(found[0].help.as_deref().unwrap().contains("\"t1\""));
    }

    #[test]
    fn apibank_lookup_keys_are_judged_but_composed_text_is_not() {
        let user = json!({"role": "User", "text": "I'm lwong, password tulip. Delete my agenda item about the dentist at 2023-05-02 15:30 at Pearl Dental."});
        let login = api(
            "GetUserToken",
            json!({"username": "lwong", "password": "tulip"}),
            json!({"token": "t1"}),
        );
        let item = |api_name: &str, content: &str| {
            api(
                api_name,
                json!({"token": "t1", "content": content, "time": "2023-05-02 15:30:00", "location": "Pearl Dental"}),
                json!("success"),
            )
        };
        let known = dialogue(&[user.clone(), login.clone(), item("DeleteAgenda", "Dentist")]);
        assert!(run(&RULE, "d.jsonl", &known).is_empty());
        let invented = dialogue(&[
            user.clone(),
            login.clone(),
            item("DeleteAgenda", "Team lunch"),
        ]);
        let found = run(&RULE, "d.jsonl", &invented);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].argument.as_deref(), Some("content"));
        // Adding an item: its content is the assistant's wording.
        let composed = dialogue(&[user, login, item("AddAgenda", "Team lunch")]);
        assert!(run(&RULE, "d.jsonl", &composed).is_empty());
    }

    fn record_health(user: &str, health_data: serde_json::Value) -> Vec<Diagnostic> {
        let record = api(
            "RecordHealthData",
            json!({"user_id": "u-77", "time": "2024-02-06 07:15:00", "health_data": health_data}),
            json!("success"),
        );
        let user = json!({"role": "User", "text": user});
        run(&RULE, "d.jsonl", &dialogue(&[user, record]))
    }

    fn arguments(found: &[Diagnostic]) -> Vec<&str> {
        found.iter().filter_map(|d| d.argument.as_deref()).collect()
    }

    #[test]
    fn each_element_of_a_list_of_strings_is_judged_at_its_place() {
        let found = run_on(
            &RULE,
            &conversation(&[
                ("user", "book lunch with priya_k today at noon", vec![]),
                (
                    "assistant",
                    "done",
                    vec![(
                        "CreateEvent",
                        json!({"name": "Lunch", "event_type": "meeting",
                               "start_time": "2023-09-11 12:00:00",
                               "attendees": ["priya_k", "dmorales", "jdoe"]}),
                        json!({"event_id": "e1"}),
                    )],
                ),
            ]),
        );
        assert_eq!(arguments(&found), ["attendees[1]"], "{found:#?}");
        assert!(found[0].message.contains("`attendees[1]` = \"dmorales\""));
        let at = found[0].at.as_ref().unwrap();
        assert_eq!(
            at.pointer,
            "/conversation/1/apis/0/request/parameters/attendees/1"
        );
    }

    #[test]
    fn every_reading_in_a_list_of_records_is_judged() {
        let user =
            "Record for user u-77 at 2024-02-06 07:15:00: blood pressure 126/84 and my heart rate";
        let given =
            "Record for user u-77 at 2024-02-06 07:15:00: blood pressure 126/84, heart rate 91";
        let text = "[{'name': 'blood_pressure', 'value': '126/84'}, {'name': 'heart_rate', 'value': '91'}]";
        let list = json!([{"name": "blood_pressure", "value": "126/84"},
                          {"name": "heart_rate", "value": "91"}]);
        // As a Python literal written as text (API-Bank): the leaf's path,
        // placed at the text that holds it.
        let found = record_health(user, json!(text));
        assert_eq!(arguments(&found), ["health_data[1].value"], "{found:#?}");
        assert_eq!(
            found[0].at.as_ref().unwrap().pointer,
            "/param_dict/health_data"
        );
        // As JSON: placed at the leaf itself.
        let found = record_health(user, list.clone());
        assert_eq!(arguments(&found), ["health_data[1].value"], "{found:#?}");
        assert_eq!(
            found[0].at.as_ref().unwrap().pointer,
            "/param_dict/health_data/1/value"
        );
        // Every reading given: nothing to report, in either form.
        assert!(record_health(given, json!(text)).is_empty());
        assert!(record_health(given, list).is_empty());
        // Readings named but never given (the upstream case): two findings.
        let named = "Record my blood pressure and heart rate, user u-77, at 2024-02-06 07:15:00";
        let found = record_health(named, json!(text));
        assert_eq!(
            arguments(&found),
            ["health_data[0].value", "health_data[1].value"]
        );
    }

    #[test]
    fn nested_objects_are_walked_down_to_their_leaves() {
        let user = "user u-77, at 2024-02-06 07:15:00, blood pressure 126 over 80";
        let nested = json!([{"name": "blood_pressure",
                             "value": {"systolic": 126, "diastolic": 84, "taken": "2024-02-06 07:15:00"}}]);
        let found = record_health(user, nested);
        assert_eq!(
            arguments(&found),
            ["health_data[0].value.diastolic"],
            "{found:#?}"
        );
        let text = "[{'name': 'blood_pressure', 'value': {'systolic': 126, 'diastolic': 84, 'at': '08:45:00'}}]";
        let found = record_health(user, json!(text));
        assert_eq!(
            arguments(&found),
            ["health_data[0].value.diastolic", "health_data[0].value.at"],
            "{found:#?}"
        );
    }

    #[test]
    fn members_the_catalog_does_not_describe_are_read_by_their_shape() {
        let user = "user u-77: on 2024-02-06 at 7:15 am my blood pressure was 118/76";
        let reading = |pressure: &str| {
            format!("[{{'time': '2024-02-06 07:15:00', 'blood_pressure': {pressure}}}]")
        };
        assert!(record_health(user, json!(reading("[118, 76]"))).is_empty());
        let found = record_health(user, json!(reading("[118, 79]")));
        assert_eq!(
            arguments(&found),
            ["health_data[0].blood_pressure[1]"],
            "{found:#?}"
        );
        let found = record_health(
            user,
            json!("[{'time': '2024-02-07 07:15:00', 'blood_pressure': [118, 76]}]"),
        );
        assert_eq!(arguments(&found), ["health_data[0].time"], "{found:#?}");
    }

    #[test]
    fn members_the_catalog_marks_as_composed_are_left_alone() {
        let scene = |devices: serde_json::Value| {
            let user =
                json!({"role": "User", "text": "Make a scene called night with the bedroom lamp."});
            let call = api(
                "AddScene",
                json!({"name": "night", "devices": devices}),
                json!("success"),
            );
            run(&RULE, "d.jsonl", &dialogue(&[user, call]))
        };
        let devices = "[{'name': 'bedroom lamp', 'description': 'Dims itself to ten percent at dusk'}, {'name': 'coffee maker', 'description': 'Brews at six'}]";
        let found = scene(json!(devices));
        assert_eq!(arguments(&found), ["devices[1].name"], "{found:#?}");
    }

    #[test]
    fn times_computed_from_grounded_values() {
        let moved = |new_start: &str| {
            run_on(
                &RULE,
                &conversation(&[
                    (
                        "user",
                        "push my dentist appointment tomorrow 45 minutes later",
                        vec![],
                    ),
                    (
                        "assistant",
                        "done",
                        vec![
                            (
                                "QueryCalendar",
                                json!({"start_time": "2023-09-12 00:00:00", "end_time": "2023-09-12 23:59:59"}),
                                json!([{"event_id": "ev-9", "name": "Dentist",
                                        "start_time": "2023-09-12 10:00:00",
                                        "end_time": "2023-09-12 10:30:00"}]),
                            ),
                            (
                                "ModifyEvent",
                                json!({"event_id": "ev-9", "new_start_time": new_start}),
                                json!({"status": "success"}),
                            ),
                        ],
                    ),
                ]),
            )
        };
        // 10:00 (or the 10:30 end) from the calendar, 45 minutes from
        // the user.
        assert!(moved("2023-09-12 10:45:00").is_empty());
        assert!(moved("2023-09-12 11:15:00").is_empty());
        // Arithmetic nothing supports.
        let found = moved("2023-09-12 11:00:00");
        assert_eq!(arguments(&found), ["new_start_time"], "{found:#?}");
        // An offset in days, and "the day after".
        let alarm = |user: &str, time: &str| {
            let login = api(
                "GetUserToken",
                json!({"username": "okafor", "password": "reed"}),
                json!({"token": "t1"}),
            );
            let add = api(
                "AddAlarm",
                json!({"token": "t1", "time": time}),
                json!("success"),
            );
            let user =
                json!({"role": "User", "text": format!("I'm okafor, password reed. {user}")});
            run(&RULE, "d.jsonl", &dialogue(&[user, login, add]))
        };
        let flight =
            "My flight is on 2024-05-10 at 6 am; wake me an hour before it, the day after too.";
        assert!(alarm(flight, "2024-05-10 05:00:00").is_empty());
        assert!(alarm(flight, "2024-05-11 05:00:00").is_empty());
        assert_eq!(alarm(flight, "2024-05-12 05:00:00").len(), 1);
        assert_eq!(alarm(flight, "2024-05-10 04:00:00").len(), 1);
    }
}
