//! Calendar: meetings and events, per user.
//!
//! Database `Calendar`: `{username: {event_id: {"event_id", "name",
//! "event_type", "description", "start_time", "end_time", "location",
//! "attendees"}}}`. Events are not hidden by the conversation's clock (a
//! calendar holds the future by design), but new or moved events must lie
//! after it.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::account::session_user;
use super::Tool;
use crate::dialogue::GoldCall;
use crate::sim::object::object;
use crate::sim::pyargs::{bind, display, lookup, py_eq, py_in, truthy, type_name};
use crate::sim::pytime::{strptime, TIMESTAMP};
use crate::sim::reply::Reply;
use crate::sim::table::{Items, Record};
use crate::sim::ToolCtx;
use crate::suite::catalog::CallRef;
use crate::suite::catalog::{
    FieldSpec, ParamSpec, ParamType, SessionEffect, ToolSpec, ValueFormat,
};
use crate::suite::TextSimilarity;
use crate::suites::tooltalk::compare::{lists_at_least, same_outcome_and_user};

pub const DESCRIPTION: &str = "Create, change, remove and look up events in the user's calendar.";

const DATABASE: &str = "Calendar";

pub static TOOLS: &[&Tool] = &[&CREATE_EVENT, &DELETE_EVENT, &MODIFY_EVENT, &QUERY_CALENDAR];

/// The reference accepts paraphrased names, descriptions and locations of
/// events when their embeddings have a cosine of at least this.
const TEXT_THRESHOLD: f64 = 0.9;

const EVENT_ID: &str = "The event's id, formatted xxxxxxxx-xxxx.";
const STRING_ARRAY: ParamType = ParamType::Array(&ParamType::String);

const fn timestamp(name: &'static str, description: &'static str, required: bool) -> ParamSpec {
    ParamSpec {
        format: ValueFormat::Timestamp,
        ..ParamSpec::new(name, ParamType::String, description, required)
    }
}

const fn composed(name: &'static str, description: &'static str, required: bool) -> ParamSpec {
    ParamSpec {
        free_text: true,
        ..ParamSpec::new(name, ParamType::String, description, required)
    }
}

pub static CREATE_EVENT: Tool = Tool {
    spec: ToolSpec {
        name: "CreateEvent",
        group: "Calendar",
        description: "Puts a new meeting or event on the user's calendar.",
        parameters: &[
            composed("name", "A short title for the event.", true),
            ParamSpec {
                enum_values: &["meeting", "event"],
                ..ParamSpec::new(
                    "event_type",
                    ParamType::String,
                    "\"meeting\" (with other people, who must be listed) or \"event\".",
                    true,
                )
            },
            composed(
                "description",
                "What the event is about, at most 1024 characters.",
                false,
            ),
            timestamp(
                "start_time",
                "When the event begins, as %Y-%m-%d %H:%M:%S; not in the past.",
                true,
            ),
            timestamp(
                "end_time",
                "When the event finishes, as %Y-%m-%d %H:%M:%S; not before it begins.",
                true,
            ),
            ParamSpec::new(
                "location",
                ParamType::String,
                "Where the event takes place, if anywhere in particular.",
                false,
            ),
            ParamSpec::new(
                "attendees",
                STRING_ARRAY,
                "Usernames of the people taking part; needed for a meeting. The user is added when missing.",
                false,
            ),
        ],
        returns: &[FieldSpec::new("event_id", "string", EVENT_ID)],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: create_event_matches,
    },
    run: |ctx, params| create_event(ctx, params).map(Reply::from),
};

fn create_event(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind(
        "CreateEvent",
        params,
        &[
            "session_token",
            "name",
            "event_type",
            "start_time",
            "end_time",
        ],
        &["description", "location", "attendees"],
    )?;
    let event_type = args.value("event_type");
    if !matches!(event_type.as_str(), Some("meeting" | "event")) {
        return Err(format!("Event type {} not supported.", display(event_type)));
    }
    let attendees = args.get("attendees");
    if event_type == "meeting" && !attendees.is_some_and(truthy) {
        return Err("Meeting must have attendees.".to_string());
    }
    let (username, user) = session_user(ctx, args.value("session_token"))?;
    let start_time = args.value("start_time");
    let end_time = args.value("end_time");
    let (start, end) = (
        strptime(start_time, TIMESTAMP)?,
        strptime(end_time, TIMESTAMP)?,
    );
    if start > end {
        return Err("Start time must be before end time.".to_string());
    }
    if start < ctx.now || end < ctx.now {
        return Err("Start time and end time must be in the future.".to_string());
    }
    let attendees = attendees
        .map(|a| with_user(a, &username))
        .transpose()?
        .unwrap_or(Value::Null);
    let event_id = ctx.rng.hex_id(&[8, 4]);
    let event = object!({
        "event_id": &event_id,
        "name": args.value("name"),
        "event_type": event_type,
        "description": args.value("description"),
        "start_time": start_time,
        "end_time": end_time,
        "location": args.value("location"),
        "attendees": attendees,
    });
    let events = ctx.own_mut().get_or_insert_with(&user, Record::new);
    if let Some(events) = events.as_object_mut() {
        events.insert(&event_id, event);
    }
    Ok(object!({ "event_id": event_id }))
}

/// The reference's `if username not in attendees: attendees = attendees +
/// [username]`, with Python's behaviour (and errors) for whatever the caller
/// passed: a list gains the user, a string is searched as text.
fn with_user(attendees: &Value, username: &Value) -> Result<Value, String> {
    if py_in(username, attendees)? {
        return Ok(attendees.clone());
    }
    match attendees {
        Value::Array(items) => {
            let mut items = items.clone();
            items.push(username.clone());
            Ok(Value::Array(items))
        }
        Value::String(_) => Err("can only concatenate str (not \"list\") to str".to_string()),
        other => Err(format!(
            "unsupported operand type(s) for +: '{}' and 'list'",
            type_name(other)
        )),
    }
}

/// Python's `key in dict` for a dict with string keys: lists and dicts
/// cannot be keys at all.
fn has_key(items: &Items, key: &Value) -> Result<bool, String> {
    match key {
        Value::String(k) => Ok(items.contains_key(k)),
        Value::Array(_) | Value::Object(_) => Err(format!("unhashable type: '{}'", type_name(key))),
        _ => Ok(false),
    }
}

/// Checks every argument the gold call gave: text fields (named in
/// `texts`) must say much the same thing, the rest must be equal (lists in
/// the same order); a missing or null argument never matches.
fn arguments_match(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    texts: &[&str],
    text: &dyn TextSimilarity,
) -> bool {
    let predicted = prediction.parameters;
    gold.request.parameters.iter().all(|(key, want)| {
        let Some(got) = lookup(predicted, key).filter(|v| !v.is_null()) else {
            return false;
        };
        if !texts.contains(&key.as_str()) {
            return py_eq(got, want);
        }
        match (got, want) {
            (Value::String(got), Value::String(want)) => {
                text.similar(Some(got), want, TEXT_THRESHOLD)
            }
            (_, Value::Null) => false,
            _ => py_eq(got, want),
        }
    })
}

/// A new event is judged by what was asked, not by the id it got: same
/// exception, every gold argument given, with the name, description and
/// location allowed to be paraphrased and everything else equal.
fn create_event_matches(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    text: &dyn TextSimilarity,
) -> bool {
    prediction.exception == gold.exception.as_deref()
        && arguments_match(prediction, gold, &["name", "description", "location"], text)
}

pub static DELETE_EVENT: Tool = Tool {
    spec: ToolSpec {
        name: "DeleteEvent",
        group: "Calendar",
        description: "Removes an event from the user's calendar by its id.",
        parameters: &[ParamSpec {
            format: ValueFormat::Id,
            ..ParamSpec::new("event_id", ParamType::String, EVENT_ID, true)
        }],
        returns: &[FieldSpec::new(
            "status",
            "string",
            "\"success\" or \"failed\".",
        )],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: crate::suites::tooltalk::compare::default_matches,
    },
    run: |ctx, params| delete_event(ctx, params).map(Reply::from),
};

fn delete_event(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind("DeleteEvent", params, &["session_token", "event_id"], &[])?;
    let event_id = args.value("event_id");
    let (_, user) = session_user(ctx, args.value("session_token"))?;
    find_event(ctx, &user, event_id)?;
    if let (Some(events), Some(key)) = (
        ctx.own_mut().get_mut(&user).and_then(Record::as_object_mut),
        event_id.as_str(),
    ) {
        events.shift_remove(key);
    }
    Ok(json!({"status": "success"}))
}

/// Fails as the reference does unless the user has an event `event_id`.
fn find_event(ctx: &ToolCtx<'_>, username: &str, event_id: &Value) -> Result<(), String> {
    let not_found = || format!("Event {} not found.", display(event_id));
    let Some(events) = ctx.own().get(username) else {
        return Err(not_found());
    };
    let found = match events.as_object() {
        Some(events) => has_key(events, event_id)?,
        None => false,
    };
    found.then_some(()).ok_or_else(not_found)
}

pub static MODIFY_EVENT: Tool = Tool {
    spec: ToolSpec {
        name: "ModifyEvent",
        group: "Calendar",
        description: "Changes an existing event; only the fields given are changed.",
        parameters: &[
            ParamSpec {
                format: ValueFormat::Id,
                ..ParamSpec::new("event_id", ParamType::String, EVENT_ID, true)
            },
            composed("new_name", "A new title for the event.", false),
            timestamp(
                "new_start_time",
                "When the event now begins, as %Y-%m-%d %H:%M:%S; give new_end_time with it.",
                false,
            ),
            timestamp(
                "new_end_time",
                "When the event now finishes, as %Y-%m-%d %H:%M:%S; give new_start_time with it.",
                false,
            ),
            composed("new_description", "A new description of the event.", false),
            ParamSpec::new(
                "new_location",
                ParamType::String,
                "Where the event now takes place.",
                false,
            ),
            ParamSpec::new(
                "new_attendees",
                STRING_ARRAY,
                "The full new list of usernames taking part; the user is added when missing.",
                false,
            ),
        ],
        returns: &[FieldSpec::new(
            "status",
            "string",
            "\"success\" or \"failed\".",
        )],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: modify_event_matches,
    },
    run: |ctx, params| modify_event(ctx, params).map(Reply::from),
};

fn modify_event(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind(
        "ModifyEvent",
        params,
        &["session_token", "event_id"],
        &[
            "new_name",
            "new_start_time",
            "new_end_time",
            "new_description",
            "new_location",
            "new_attendees",
        ],
    )?;
    let event_id = args.value("event_id");
    let (username, user) = session_user(ctx, args.value("session_token"))?;
    find_event(ctx, &user, event_id)?;
    let now = ctx.now;
    let Some(event) = ctx
        .own_mut()
        .get_mut(&user)
        .and_then(|events| events.get_mut(event_id.as_str().unwrap_or_default()))
        .and_then(Value::as_object_mut)
    else {
        // An event that is not an object: the reference would crash on it.
        return Err(format!("Event {} not found.", display(event_id)));
    };
    // The reference changes the event field by field and keeps what it has
    // changed when a later check fails; so does this.
    if let Some(name) = args.get("new_name") {
        event.insert("name".into(), name.clone());
    }
    let (new_start, new_end) = (args.get("new_start_time"), args.get("new_end_time"));
    if let Some(new_start) = new_start {
        let Some(new_end) = new_end else {
            return Err("new_end_time must be provided if new_start_time is provided.".into());
        };
        let (start, end) = (
            strptime(new_start, TIMESTAMP)?,
            strptime(new_end, TIMESTAMP)?,
        );
        if start > end {
            return Err("Start time must be before end time.".into());
        }
        if start < now || end < now {
            return Err("Start time and end time must be in the future.".into());
        }
        event.insert("start_time".into(), new_start.clone());
    }
    if let Some(new_end) = new_end {
        if new_start.is_none() {
            return Err("new_start_time must be provided if new_end_time is provided.".into());
        }
        event.insert("end_time".into(), new_end.clone());
    }
    if let Some(description) = args.get("new_description") {
        event.insert("description".into(), description.clone());
    }
    if let Some(location) = args.get("new_location") {
        event.insert("location".into(), location.clone());
    }
    if let Some(attendees) = args.get("new_attendees") {
        let attendees = with_user(attendees, &username)?;
        event.insert("attendees".into(), attendees);
    }
    Ok(json!({"status": "success"}))
}

/// A change is right when it had the same outcome (status and exception)
/// and gave every gold argument: the new name, description and location
/// may be paraphrased, everything else must be equal.
fn modify_event_matches(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    text: &dyn TextSimilarity,
) -> bool {
    prediction.response.py_eq(&gold.response)
        && prediction.exception == gold.exception.as_deref()
        && arguments_match(
            prediction,
            gold,
            &["new_name", "new_description", "new_location"],
            text,
        )
}

pub static QUERY_CALENDAR: Tool = Tool {
    spec: ToolSpec {
        name: "QueryCalendar",
        group: "Calendar",
        description: "Lists the user's events that overlap a period of time.",
        parameters: &[
            ParamSpec {
                bound: true,
                ..timestamp(
                    "start_time",
                    "Beginning of the period, as %Y-%m-%d %H:%M:%S.",
                    true,
                )
            },
            ParamSpec {
                bound: true,
                ..timestamp("end_time", "End of the period, as %Y-%m-%d %H:%M:%S.", true)
            },
        ],
        returns: &[FieldSpec {
            fields: &[
                FieldSpec::new("event_id", "string", EVENT_ID),
                FieldSpec::new("name", "string", "The event's title."),
                FieldSpec::new("event_type", "string", "\"meeting\" or \"event\"."),
                FieldSpec::new("description", "string", "What the event is about."),
                FieldSpec::new(
                    "start_time",
                    "string",
                    "When it begins, as %Y-%m-%d %H:%M:%S.",
                ),
                FieldSpec::new(
                    "end_time",
                    "string",
                    "When it finishes, as %Y-%m-%d %H:%M:%S.",
                ),
                FieldSpec::new("location", "string", "Where it takes place."),
                FieldSpec::new("attendees", "array", "Usernames of the people taking part."),
            ],
            ..FieldSpec::new(
                "events",
                "array",
                "The events that start, end or run within the period, in the order they were added.",
            )
        }],
        is_action: false,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: query_calendar_matches,
    },
    run: query_calendar,
};

fn query_calendar(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Reply, String> {
    let args = bind(
        "QueryCalendar",
        params,
        &["session_token", "start_time", "end_time"],
        &[],
    )?;
    let (username, user) = session_user(ctx, args.value("session_token"))?;
    let Some(events) = ctx.own().get(&user) else {
        return Err(format!("User {} has no events.", display(&username)));
    };
    let start = strptime(args.value("start_time"), TIMESTAMP)?;
    let end = strptime(args.value("end_time"), TIMESTAMP)?;
    if start > end {
        return Err("Start time must be before end time.".to_string());
    }
    let mut found = Vec::new();
    for event in events
        .as_object()
        .into_iter()
        .flat_map(Items::shared_values)
    {
        let field = |name: &str| {
            crate::sim::table::field(event, name).ok_or_else(|| crate::sim::pyargs::key_error(name))
        };
        let event_start = strptime(field("start_time")?, TIMESTAMP)?;
        let event_end = strptime(field("end_time")?, TIMESTAMP)?;
        let overlaps = (start <= event_start && event_start <= end)
            || (start <= event_end && event_end <= end)
            || (event_start <= start && event_end >= end);
        if overlaps {
            found.push(Arc::clone(event));
        }
    }
    Ok(Reply::Listed {
        key: "events",
        items: found,
    })
}

/// A query is right when it raised what the gold call raised, ran as the
/// same user, and found at least the events the gold call found.
fn query_calendar_matches(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    _text: &dyn TextSimilarity,
) -> bool {
    same_outcome_and_user(prediction, gold)
        && lists_at_least(prediction, gold, "events", "event_id")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Databases;
    use crate::suite::similarity::ExactText;
    use crate::suites::tooltalk::plugins::testing::{self, call};
    use crate::suites::tooltalk::World;

    // python3: r = random.Random(489)
    //   [f"{r.randint(0, 0xffffffff):08x}-{r.randint(0, 0xffff):04x}" for _ in range(2)]
    const FIRST_ID: &str = "e149636f-d9ca";
    const SECOND_ID: &str = "03c93f31-b8a6";

    fn databases() -> Databases {
        let tables = [
            (
                "Account",
                json!({
                    "ann": {"username": "ann", "session_token": "tok-ann"},
                    "bob": {"username": "bob", "session_token": "tok-bob"},
                    "cy": {"username": "cy", "session_token": "tok-cy"},
                }),
            ),
            (
                "Calendar",
                json!({
                    "ann": {
                        "e1": {"event_id": "e1", "name": "Standup", "event_type": "meeting",
                               "start_time": "2023-09-11 10:00:00", "end_time": "2023-09-11 10:30:00",
                               "location": "Room 1", "description": "Daily", "attendees": ["ann", "bob"]},
                        "e2": {"event_id": "e2", "name": "Dentist", "event_type": "event",
                               "start_time": "2023-09-12 09:00:00", "end_time": "2023-09-12 17:00:00",
                               "location": null, "description": null, "attendees": null}
                    },
                    "cy": {"bad": {"event_id": "bad", "start_time": "2023-09-11 10:00:00"}}
                }),
            ),
        ];
        testing::databases(tables)
    }

    fn logged_in(user: Option<&str>) -> World {
        testing::world(&databases(), user, None)
    }

    fn meeting() -> Value {
        json!({"name": "Sync", "event_type": "meeting", "start_time": "2023-09-13 10:00:00",
               "end_time": "2023-09-13 11:00:00", "attendees": ["bob"]})
    }

    #[test]
    fn create_event_stores_the_event_with_the_user_among_attendees() {
        let mut w = logged_in(Some("ann"));
        assert_eq!(
            call(&mut w, "CreateEvent", meeting()).unwrap(),
            json!({"event_id": FIRST_ID})
        );
        let mut params = meeting();
        params["event_type"] = json!("event");
        params["attendees"] = json!(["ann", "bob"]);
        params["description"] = json!("notes");
        assert_eq!(
            call(&mut w, "CreateEvent", params).unwrap(),
            json!({"event_id": SECOND_ID})
        );
        let events = w.table("Calendar").unwrap()["ann"].as_object().unwrap();
        assert_eq!(
            events.keys().collect::<Vec<_>>(),
            ["e1", "e2", FIRST_ID, SECOND_ID]
        );
        let stored = serde_json::to_string(&events[FIRST_ID]).unwrap();
        assert_eq!(
            stored,
            format!(
                "{{\"event_id\":\"{FIRST_ID}\",\"name\":\"Sync\",\"event_type\":\"meeting\",\
                 \"description\":null,\"start_time\":\"2023-09-13 10:00:00\",\
                 \"end_time\":\"2023-09-13 11:00:00\",\"location\":null,\"attendees\":[\"bob\",\"ann\"]}}"
            )
        );
        assert_eq!(events[SECOND_ID]["attendees"], json!(["ann", "bob"]));
        // A user without events gets a calendar.
        let mut w = logged_in(Some("bob"));
        call(&mut w, "CreateEvent", meeting()).unwrap();
        assert_eq!(
            w.table("Calendar").unwrap()["bob"][FIRST_ID]["attendees"],
            json!(["bob"])
        );
    }

    #[test]
    fn create_event_checks_in_the_reference_order() {
        let mut w = logged_in(Some("ann"));
        let with = |k: &str, v: Value| {
            let mut p = meeting();
            p[k] = v;
            p
        };
        let cases = [
            (
                with("event_type", json!("party")),
                "Event type party not supported.",
            ),
            (
                with("event_type", json!(null)),
                "Event type None not supported.",
            ),
            (with("attendees", json!([])), "Meeting must have attendees."),
            (
                with("start_time", json!("13/09/2023")),
                "time data '13/09/2023' does not match format '%Y-%m-%d %H:%M:%S'",
            ),
            (
                with("end_time", json!(5)),
                "strptime() argument 1 must be str, not int",
            ),
            (
                with("start_time", json!("2023-09-13 12:00:00")),
                "Start time must be before end time.",
            ),
            (
                with("start_time", json!("2023-09-09 10:00:00")),
                "Start time and end time must be in the future.",
            ),
            (
                with("attendees", json!(7)),
                "argument of type 'int' is not iterable",
            ),
            (
                with("attendees", json!("bob")),
                "can only concatenate str (not \"list\") to str",
            ),
            (
                with("attendees", json!({"bob": 1})),
                "unsupported operand type(s) for +: 'dict' and 'list'",
            ),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "CreateEvent", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
        let mut missing = meeting();
        missing.as_object_mut().unwrap().remove("name");
        assert_eq!(
            call(&mut w, "CreateEvent", missing).unwrap_err(),
            "CreateEvent.call() missing 1 required positional argument: 'name'"
        );
        // No id was drawn by the failures; a string naming the user is kept as is.
        assert_eq!(
            call(
                &mut w,
                "CreateEvent",
                with("attendees", json!("ann and bob"))
            )
            .unwrap(),
            json!({"event_id": FIRST_ID})
        );
        // An event needs no attendees.
        let mut event = with("event_type", json!("event"));
        event.as_object_mut().unwrap().remove("attendees");
        assert_eq!(
            call(&mut w, "CreateEvent", event).unwrap(),
            json!({"event_id": SECOND_ID})
        );
        let mut w = logged_in(None);
        assert_eq!(
            call(&mut w, "CreateEvent", meeting()).unwrap_err(),
            "User is not logged in"
        );
    }

    /// Values the reference writes into its exception texts with an
    /// f-string read as Python writes them: floats with Python's exponent
    /// (`1e-07`, `1e+20`), `None`, `True`, lists and dicts as Python
    /// prints them; a null time is named `None` by `strptime`.
    #[test]
    fn values_in_exception_texts_are_written_as_python_writes_them() {
        let mut w = logged_in(Some("ann"));
        let with = |k: &str, v: Value| {
            let mut p = meeting();
            p[k] = v;
            p
        };
        for (event_type, shown) in [
            (json!(1e-07), "1e-07"),
            (json!(1e20), "1e+20"),
            (json!(2.0), "2.0"),
            (json!(true), "True"),
            (json!(["meeting"]), "['meeting']"),
            (json!({"a": null}), "{'a': None}"),
        ] {
            assert_eq!(
                call(&mut w, "CreateEvent", with("event_type", event_type)).unwrap_err(),
                format!("Event type {shown} not supported.")
            );
        }
        for tool in ["DeleteEvent", "ModifyEvent"] {
            assert_eq!(
                call(&mut w, tool, json!({"event_id": 1e-05})).unwrap_err(),
                "Event 1e-05 not found."
            );
        }
        for field in ["start_time", "end_time"] {
            let mut params =
                json!({"start_time": "2023-09-11 00:00:00", "end_time": "2023-09-12 00:00:00"});
            params[field] = json!(null);
            assert_eq!(
                call(&mut w, "QueryCalendar", params).unwrap_err(),
                "strptime() argument 1 must be str, not None"
            );
            assert_eq!(
                call(&mut w, "CreateEvent", with(field, json!(null))).unwrap_err(),
                "strptime() argument 1 must be str, not None"
            );
        }
    }

    #[test]
    fn delete_event_removes_only_existing_events() {
        let mut w = logged_in(Some("ann"));
        assert_eq!(
            call(&mut w, "DeleteEvent", json!({"event_id": "e1"})).unwrap(),
            json!({"status": "success"})
        );
        assert_eq!(
            w.table("Calendar").unwrap()["ann"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["e2"]
        );
        assert_eq!(
            call(&mut w, "DeleteEvent", json!({"event_id": "e1"})).unwrap_err(),
            "Event e1 not found."
        );
        assert_eq!(
            call(&mut w, "DeleteEvent", json!({"event_id": 3})).unwrap_err(),
            "Event 3 not found."
        );
        assert_eq!(
            call(&mut w, "DeleteEvent", json!({"event_id": ["e2"]})).unwrap_err(),
            "unhashable type: 'list'"
        );
        assert_eq!(
            call(&mut w, "DeleteEvent", json!({"id": "e2"})).unwrap_err(),
            "DeleteEvent.call() got an unexpected keyword argument 'id'"
        );
        // A user without a calendar: not found, before the id is even hashed.
        let mut w = logged_in(Some("bob"));
        assert_eq!(
            call(&mut w, "DeleteEvent", json!({"event_id": ["e2"]})).unwrap_err(),
            "Event ['e2'] not found."
        );
    }

    #[test]
    fn modify_event_changes_fields_in_order_and_keeps_partial_changes() {
        let mut w = logged_in(Some("ann"));
        let ok = json!({"status": "success"});
        assert_eq!(
            call(
                &mut w,
                "ModifyEvent",
                json!({"event_id": "e2", "new_name": "Doctor",
                "new_start_time": "2023-09-12 10:00:00", "new_end_time": "2023-09-12 11:00:00",
                "new_description": "checkup", "new_location": "Clinic", "new_attendees": ["bob"]})
            )
            .unwrap(),
            ok
        );
        let event = &w.table("Calendar").unwrap()["ann"]["e2"];
        assert_eq!(
            event,
            &json!({"event_id": "e2", "name": "Doctor", "event_type": "event",
                    "start_time": "2023-09-12 10:00:00", "end_time": "2023-09-12 11:00:00",
                    "location": "Clinic", "description": "checkup", "attendees": ["bob", "ann"]})
        );
        let cases = [
            (
                json!({"event_id": "e1", "new_name": "Renamed", "new_start_time": "2023-09-12 10:00:00"}),
                "new_end_time must be provided if new_start_time is provided.",
            ),
            (
                json!({"event_id": "e1", "new_end_time": "2023-09-12 10:00:00"}),
                "new_start_time must be provided if new_end_time is provided.",
            ),
            (
                json!({"event_id": "e1", "new_start_time": "2023-09-12 10:00", "new_end_time": "x"}),
                "time data '2023-09-12 10:00' does not match format '%Y-%m-%d %H:%M:%S'",
            ),
            (
                json!({"event_id": "e1", "new_start_time": "2023-09-12 10:00:00", "new_end_time": "2023-09-12 09:00:00"}),
                "Start time must be before end time.",
            ),
            (
                json!({"event_id": "e1", "new_start_time": "2023-09-10 11:00:00", "new_end_time": "2023-09-12 09:00:00"}),
                "Start time and end time must be in the future.",
            ),
            (
                json!({"event_id": "e1", "new_attendees": 4}),
                "argument of type 'int' is not iterable",
            ),
            (json!({"event_id": "zz"}), "Event zz not found."),
            (json!({"event_id": {"a": 1}}), "unhashable type: 'dict'"),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "ModifyEvent", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
        // The name changed before the failing time check stays changed.
        assert_eq!(
            w.table("Calendar").unwrap()["ann"]["e1"]["name"],
            json!("Renamed")
        );
        assert_eq!(
            w.table("Calendar").unwrap()["ann"]["e1"]["start_time"],
            json!("2023-09-11 10:00:00")
        );
        // Nulls mean "unchanged"; a field the event lacked is added at its end.
        let mut w = logged_in(Some("cy"));
        call(
            &mut w,
            "ModifyEvent",
            json!({"event_id": "bad", "new_name": null, "new_location": "Hall"}),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&w.table("Calendar").unwrap()["cy"]["bad"]).unwrap(),
            r#"{"event_id":"bad","start_time":"2023-09-11 10:00:00","location":"Hall"}"#
        );
        let mut w = logged_in(Some("bob"));
        assert_eq!(
            call(&mut w, "ModifyEvent", json!({"event_id": "e1"})).unwrap_err(),
            "Event e1 not found."
        );
    }

    #[test]
    fn query_calendar_returns_overlapping_events_in_database_order() {
        let mut w = logged_in(Some("ann"));
        let q = |w: &mut World, s: &str, e: &str| {
            call(w, "QueryCalendar", json!({"start_time": s, "end_time": e}))
        };
        let ids = |v: Value| -> Vec<String> {
            v["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["event_id"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(
            ids(q(&mut w, "2023-09-11 00:00:00", "2023-09-12 23:00:00").unwrap()),
            ["e1", "e2"]
        );
        // Ends inside, starts inside, and spans the whole period.
        assert_eq!(
            ids(q(&mut w, "2023-09-11 10:30:00", "2023-09-11 12:00:00").unwrap()),
            ["e1"]
        );
        assert_eq!(
            ids(q(&mut w, "2023-09-12 08:00:00", "2023-09-12 09:00:00").unwrap()),
            ["e2"]
        );
        assert_eq!(
            ids(q(&mut w, "2023-09-12 10:00:00", "2023-09-12 11:00:00").unwrap()),
            ["e2"]
        );
        assert_eq!(
            ids(q(&mut w, "2023-09-13 00:00:00", "2023-09-14 00:00:00").unwrap()),
            Vec::<String>::new()
        );
        let full = q(&mut w, "2023-09-11 10:00:00", "2023-09-11 10:00:00").unwrap();
        assert_eq!(full["events"][0], w.table("Calendar").unwrap()["ann"]["e1"]);
        assert_eq!(
            q(&mut w, "2023-09-12 00:00:00", "2023-09-11 00:00:00").unwrap_err(),
            "Start time must be before end time."
        );
        assert_eq!(
            q(&mut w, "2023-09-12", "2023-09-11 00:00:00").unwrap_err(),
            "time data '2023-09-12' does not match format '%Y-%m-%d %H:%M:%S'"
        );
        let mut w = logged_in(Some("bob"));
        assert_eq!(
            q(&mut w, "2023-09-12", "x").unwrap_err(),
            "User bob has no events."
        );
        let mut w = logged_in(Some("cy"));
        assert_eq!(
            q(&mut w, "2023-09-11 00:00:00", "2023-09-12 00:00:00").unwrap_err(),
            "'end_time'"
        );
    }

    fn gold(api: &str, params: Value, response: Value, exception: Option<&str>) -> GoldCall {
        GoldCall {
            exception: exception.map(str::to_string),
            ..testing::gold(api, params, response)
        }
    }

    #[test]
    fn comparators_follow_the_reference() {
        let t = &ExactText;
        let base = json!({"session_token": "s", "name": "Sync", "event_type": "meeting",
                          "start_time": "2023-09-13 10:00:00", "end_time": "2023-09-13 11:00:00",
                          "attendees": ["bob", "ann"]});
        let g = gold("CreateEvent", base.clone(), json!({"event_id": "x"}), None);
        let p = |edit: &dyn Fn(&mut Value)| {
            let mut v = base.clone();
            edit(&mut v);
            gold("CreateEvent", v, json!({"event_id": "other"}), None)
        };
        assert!(create_event_matches(CallRef::from(&p(&|_| {})), &g, t));
        assert!(create_event_matches(
            CallRef::from(&p(&|v| v["location"] = json!("extra"))),
            &g,
            t
        ));
        assert!(!create_event_matches(
            CallRef::from(&p(&|v| v["name"] = json!("Other"))),
            &g,
            t
        ));
        assert!(!create_event_matches(
            CallRef::from(&p(&|v| v["attendees"] = json!(["ann", "bob"]))),
            &g,
            t
        ));
        assert!(!create_event_matches(
            CallRef::from(&p(&|v| v["name"] = json!(null))),
            &g,
            t
        ));
        let mut failed = p(&|_| {});
        failed.exception = Some("boom".into());
        assert!(!create_event_matches(CallRef::from(&failed), &g, t));

        let mg = gold(
            "ModifyEvent",
            json!({"session_token": "s", "event_id": "e1", "new_location": "A"}),
            json!({"status": "success"}),
            None,
        );
        let mp = gold(
            "ModifyEvent",
            json!({"session_token": "s", "event_id": "e1", "new_location": "A", "new_name": "n"}),
            json!({"status": "success"}),
            None,
        );
        assert!(modify_event_matches(CallRef::from(&mp), &mg, t));
        let mut wrong = mp.clone();
        wrong.request.parameters["event_id"] = json!("e2");
        assert!(!modify_event_matches(CallRef::from(&wrong), &mg, t));

        let ev = |id: &str| json!({"event_id": id});
        let qg = gold(
            "QueryCalendar",
            json!({"session_token": "s", "start_time": "a", "end_time": "b"}),
            json!({"events": [ev("1")]}),
            None,
        );
        let qp = gold(
            "QueryCalendar",
            json!({"session_token": "s", "start_time": "c", "end_time": "d"}),
            json!({"events": [ev("0"), ev("1")]}),
            None,
        );
        assert!(query_calendar_matches(CallRef::from(&qp), &qg, t));
        assert!(!query_calendar_matches(
            CallRef::from(&qg),
            &gold(
                "QueryCalendar",
                json!({"session_token": "s"}),
                json!({"events": [ev("2")]}),
                None
            ),
            t
        ));
        let mut other_user = qp.clone();
        other_user.request.parameters["session_token"] = json!("t");
        assert!(!query_calendar_matches(CallRef::from(&other_user), &qg, t));
    }

    #[test]
    fn specs_describe_the_reference_signature() {
        let names = |s: &ToolSpec| {
            s.parameters
                .iter()
                .map(|p| (p.name, p.required))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(&CREATE_EVENT.spec),
            [
                ("name", true),
                ("event_type", true),
                ("description", false),
                ("start_time", true),
                ("end_time", true),
                ("location", false),
                ("attendees", false)
            ]
        );
        assert!(TOOLS
            .iter()
            .all(|t| t.spec.requires_auth && t.spec.database == Some("Calendar")));
        assert_eq!(TOOLS.iter().filter(|t| t.spec.is_action).count(), 3);
    }
}
