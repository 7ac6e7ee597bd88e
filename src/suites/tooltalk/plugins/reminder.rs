//! Reminder: the user's to-do list.
//!
//! Database `Reminder`: `{username: {reminder_id: {"reminder_id", "task",
//! "due_date", "status"}}}`, where `due_date` is a timestamp or `null` and
//! `status` is `"pending"` or `"complete"`. As in the reference, every
//! reminder is listed whatever its due date: a to-do list holds the future.

use serde_json::{json, Map, Value};

use super::account::{item_field, key_error_for, session_username};
use super::Tool;
use crate::dialogue::GoldCall;
use crate::sim::object::object;
use crate::sim::pyargs::{
    bind, dict_key, display, lookup, no_attribute, py_eq, py_eq_objects, py_key,
};
use crate::sim::pytime::{strptime, strptime_str, TIMESTAMP};
use crate::sim::reply::Reply;
use crate::sim::table::Record;
use crate::sim::ToolCtx;
use crate::suite::catalog::CallRef;
use crate::suite::catalog::{
    FieldSpec, ParamSpec, ParamType, SessionEffect, ToolSpec, ValueFormat,
};
use crate::suite::TextSimilarity;
use crate::suites::tooltalk::compare::{default_matches, lists_at_least};

pub const DESCRIPTION: &str =
    "Keep the user's to-do list: add, list, complete and remove reminders.";

const DATABASE: &str = "Reminder";

pub static TOOLS: &[&Tool] = &[
    &ADD_REMINDER,
    &GET_REMINDERS,
    &DELETE_REMINDER,
    &COMPLETE_REMINDER,
];

/// The reference accepts a paraphrased task when the embeddings of the two
/// texts have a cosine of at least this.
const TASK_THRESHOLD: f64 = 0.9;

const REMINDER_ID: &str = "The reminder's id, formatted xx-xxxx.";
const STATUS: FieldSpec = FieldSpec::new("status", "string", "\"success\" when it worked.");

const fn reminder_id(description: &'static str) -> ParamSpec {
    ParamSpec {
        format: ValueFormat::Id,
        ..ParamSpec::new("reminder_id", ParamType::String, description, true)
    }
}

/// Where the user's reminders live in the database: under their username
/// (one registered as a value other than text has a key no string has).
fn user_key(username: &Value) -> Result<String, String> {
    Ok(py_key(username)?.into_owned())
}

pub static ADD_REMINDER: Tool = Tool {
    spec: ToolSpec {
        name: "AddReminder",
        group: "Reminder",
        description: "Puts a new task on the user's to-do list, optionally with a due date.",
        parameters: &[
            ParamSpec {
                free_text: true,
                ..ParamSpec::new(
                    "task",
                    ParamType::String,
                    "What the user wants to be reminded of.",
                    true,
                )
            },
            ParamSpec {
                format: ValueFormat::Timestamp,
                ..ParamSpec::new(
                    "due_date",
                    ParamType::String,
                    "When the task is due, as %Y-%m-%d %H:%M:%S; leave out when it has no deadline.",
                    false,
                )
            },
        ],
        returns: &[FieldSpec::new("reminder_id", "string", REMINDER_ID)],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: add_reminder_matches,
    },
    run: |ctx, params| add_reminder(ctx, params).map(Reply::from),
};

fn add_reminder(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind(
        "AddReminder",
        params,
        &["session_token", "task"],
        &["due_date"],
    )?;
    let username = session_username(ctx, args.value("session_token"))?;
    let user = user_key(&username)?;
    // The user's list exists from here on, even if the due date is refused.
    ctx.own_mut().get_or_insert_with(&user, Record::new);
    match args.get("due_date") {
        Some(Value::String(due)) => {
            strptime_str(due, TIMESTAMP).map_err(|_| format!("Invalid due_date: {due}"))?;
        }
        // Not a string: Python's TypeError is not caught.
        Some(other) => {
            strptime(other, TIMESTAMP)?;
        }
        None => {}
    }
    let reminder_id = ctx.rng.hex_id(&[2, 4]);
    let record = object!({
        "reminder_id": &reminder_id,
        "task": args.value("task"),
        "due_date": args.value("due_date"),
        "status": "pending",
    });
    if let Some(reminders) = ctx.own_mut().get_mut(&user).and_then(Record::as_object_mut) {
        reminders.insert(&reminder_id, record);
    }
    Ok(object!({ "reminder_id": reminder_id }))
}

/// Adding is judged by what was asked, not by the id: the same exception,
/// and every argument of the gold call given, where the task may be
/// paraphrased (similar text) and the due date only needs the same day.
fn add_reminder_matches(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    text: &dyn TextSimilarity,
) -> bool {
    if prediction.exception != gold.exception.as_deref() {
        return false;
    }
    let predicted = prediction.parameters;
    gold.request.parameters.iter().all(|(key, want)| {
        let Some(got) = lookup(predicted, key) else {
            return false;
        };
        match key.as_str() {
            "due_date" => {
                match (strptime(got, TIMESTAMP), strptime(want, TIMESTAMP)) {
                    (Ok(got), Ok(want)) => got.date() == want.date(),
                    // The reference would crash here; only equal values pass.
                    _ => py_eq(got, want),
                }
            }
            "task" => match want {
                Value::String(want) => text.similar(got.as_str(), want, TASK_THRESHOLD),
                _ => py_eq(got, want),
            },
            _ => py_eq(got, want),
        }
    })
}

pub static GET_REMINDERS: Tool = Tool {
    spec: ToolSpec {
        name: "GetReminders",
        group: "Reminder",
        description: "Lists every reminder on the user's to-do list, done or not.",
        parameters: &[],
        returns: &[FieldSpec {
            fields: &[
                FieldSpec::new("reminder_id", "string", REMINDER_ID),
                FieldSpec::new("task", "string", "What to be reminded of."),
                FieldSpec::new(
                    "due_date",
                    "string",
                    "When it is due, as %Y-%m-%d %H:%M:%S, or null.",
                ),
                FieldSpec::new("status", "string", "\"pending\" or \"complete\"."),
            ],
            ..FieldSpec::new("reminders", "array", "The reminders, oldest first.")
        }],
        is_action: false,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: get_reminders_matches,
    },
    run: get_reminders,
};

fn get_reminders(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Reply, String> {
    let args = bind("GetReminders", params, &["session_token"], &[])?;
    let username = session_username(ctx, args.value("session_token"))?;
    let Some(reminders) = ctx.own().get(&user_key(&username)?) else {
        return Ok(json!({"reminders": []}).into());
    };
    let Some(reminders) = reminders.as_object() else {
        return Err(no_attribute(&reminders.to_value(), "values"));
    };
    Ok(Reply::Listed {
        key: "reminders",
        items: reminders.shared_values().cloned().collect(),
    })
}

/// A listing is right when the request is the same (tool and arguments),
/// the exception is the same, and it shows at least the reminders the
/// gold call showed (by id; more are fine).
fn get_reminders_matches(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    _text: &dyn TextSimilarity,
) -> bool {
    let same_request = prediction.api_name == gold.request.api_name
        && py_eq_objects(prediction.parameters, &gold.request.parameters);
    if !same_request || prediction.exception != gold.exception.as_deref() {
        return false;
    }
    lists_at_least(prediction, gold, "reminders", "reminder_id")
}

pub static DELETE_REMINDER: Tool = Tool {
    spec: ToolSpec {
        name: "DeleteReminder",
        group: "Reminder",
        description: "Removes a reminder from the user's to-do list.",
        parameters: &[reminder_id("The id of the reminder to remove.")],
        returns: &[STATUS],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| delete_reminder(ctx, params).map(Reply::from),
};

fn delete_reminder(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind(
        "DeleteReminder",
        params,
        &["session_token", "reminder_id"],
        &[],
    )?;
    let (user, id) = find_reminder(ctx, args.value("session_token"), args.value("reminder_id"))?;
    if let Some(reminders) = ctx.own_mut().get_mut(&user).and_then(Record::as_object_mut) {
        reminders.shift_remove(&id);
    }
    Ok(json!({"status": "success"}))
}

/// The user's list and the reminder's id, checked as the reference does:
/// a user without a list is a `KeyError`, an unknown id is reported.
fn find_reminder(
    ctx: &ToolCtx<'_>,
    token: &Value,
    reminder_id: &Value,
) -> Result<(String, String), String> {
    let username = session_username(ctx, token)?;
    let user = user_key(&username)?;
    let reminders = ctx
        .own()
        .get(&user)
        .ok_or_else(|| key_error_for(&username))?;
    let not_found = || format!("Reminder {} not found in database", display(reminder_id));
    let id = dict_key(reminder_id)?.ok_or_else(not_found)?;
    if reminders.get(id).is_none() {
        return Err(not_found());
    }
    Ok((user, id.to_string()))
}

pub static COMPLETE_REMINDER: Tool = Tool {
    spec: ToolSpec {
        name: "CompleteReminder",
        group: "Reminder",
        description: "Marks a reminder on the user's to-do list as done.",
        parameters: &[reminder_id("The id of the reminder that is done.")],
        returns: &[STATUS],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| complete_reminder(ctx, params).map(Reply::from),
};

fn complete_reminder(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind(
        "CompleteReminder",
        params,
        &["session_token", "reminder_id"],
        &[],
    )?;
    let (user, id) = find_reminder(ctx, args.value("session_token"), args.value("reminder_id"))?;
    let reminder = &ctx.own()[&user][&id];
    if py_eq(item_field(reminder, "status")?, &json!("complete")) {
        return Err(format!("Reminder {id} already completed"));
    }
    if let Some(Value::Object(reminder)) = ctx.own_mut().get_mut(&user).and_then(|r| r.get_mut(&id))
    {
        reminder.insert("status".to_string(), json!("complete"));
    }
    Ok(json!({"status": "success"}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Databases;
    use crate::suite::similarity::ExactText;
    use crate::suites::tooltalk::plugins::testing::{self, call, gold};
    use crate::suites::tooltalk::World;

    // python3: r = random.Random(489); [f"{r.randint(0, 0xff):02x}-{r.randint(0, 0xffff):04x}" for _ in range(2)]
    const FIRST_ID: &str = "5b-dd80";
    const SECOND_ID: &str = "20-d9ca";

    fn databases() -> Databases {
        let tables = [
            (
                "Account",
                json!({
                    "ann": {"username": "ann", "session_token": null},
                    "bob": {"username": "bob", "session_token": null},
                    "cy": {"username": "cy", "session_token": null},
                }),
            ),
            (
                "Reminder",
                json!({
                    "ann": {
                        "r1": {"reminder_id": "r1", "task": "Call mum", "due_date": null, "status": "pending"},
                        "r2": {"reminder_id": "r2", "task": "Taxes", "due_date": "2023-12-01 00:00:00", "status": "complete"},
                    },
                    "cy": [],
                }),
            ),
        ];
        testing::databases(tables)
    }

    fn logged_in(user: &str) -> World {
        testing::world(&databases(), Some(user), None)
    }

    fn reminders(w: &World, user: &str) -> Value {
        w.table("Reminder").unwrap()[user].to_value()
    }

    #[test]
    fn add_reminder_stores_a_pending_task_in_field_order() {
        let mut w = logged_in("ann");
        assert_eq!(
            call(&mut w, "AddReminder", json!({"task": "Buy milk"})).unwrap(),
            json!({"reminder_id": FIRST_ID})
        );
        let added = call(
            &mut w,
            "AddReminder",
            json!({"task": "Pay rent", "due_date": "2023-10-01 09:00:00"}),
        );
        assert_eq!(added.unwrap(), json!({"reminder_id": SECOND_ID}));
        let list = reminders(&w, "ann");
        let ids: Vec<&String> = list.as_object().unwrap().keys().collect();
        assert_eq!(ids, ["r1", "r2", FIRST_ID, SECOND_ID]);
        let stored = &list[FIRST_ID];
        let keys: Vec<&String> = stored.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["reminder_id", "task", "due_date", "status"]);
        assert_eq!(
            *stored,
            json!({"reminder_id": FIRST_ID, "task": "Buy milk", "due_date": null, "status": "pending"})
        );
        assert_eq!(list[SECOND_ID]["due_date"], "2023-10-01 09:00:00");
    }

    #[test]
    fn add_reminder_refuses_bad_due_dates_after_creating_the_list() {
        let mut w = logged_in("bob");
        let cases = [
            (
                json!({"task": "x", "due_date": "2023-10-01"}),
                "Invalid due_date: 2023-10-01",
            ),
            (
                json!({"task": "x", "due_date": "tomorrow"}),
                "Invalid due_date: tomorrow",
            ),
            (
                json!({"task": "x", "due_date": 20231001}),
                "strptime() argument 1 must be str, not int",
            ),
            (
                json!({"due_date": "2023-10-01 09:00:00"}),
                "AddReminder.call() missing 1 required positional argument: 'task'",
            ),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "AddReminder", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
        // The first refusal already gave bob an (empty) list, so deleting
        // reports the id rather than a KeyError.
        assert_eq!(reminders(&w, "bob"), json!({}));
        assert_eq!(
            call(&mut w, "DeleteReminder", json!({"reminder_id": "r1"})).unwrap_err(),
            "Reminder r1 not found in database"
        );
        // Refusals drew no ids.
        assert_eq!(
            call(
                &mut w,
                "AddReminder",
                json!({"task": "x", "due_date": null})
            )
            .unwrap(),
            json!({"reminder_id": FIRST_ID})
        );
    }

    #[test]
    fn get_reminders_lists_all_in_database_order() {
        let mut w = logged_in("ann");
        let listed = call(&mut w, "GetReminders", json!({})).unwrap();
        let ann = databases().get("Reminder").unwrap()["ann"].clone();
        let want: Vec<Value> = ann.as_object().unwrap().values().cloned().collect();
        assert_eq!(listed, json!({ "reminders": want }));
        assert_eq!(
            call(&mut w, "GetReminders", json!({"status": "pending"})).unwrap_err(),
            "GetReminders.call() got an unexpected keyword argument 'status'"
        );
        let mut w = logged_in("bob");
        assert_eq!(
            call(&mut w, "GetReminders", json!({})).unwrap(),
            json!({"reminders": []})
        );
        let mut w = logged_in("cy");
        assert_eq!(
            call(&mut w, "GetReminders", json!({})).unwrap_err(),
            "'list' object has no attribute 'values'"
        );
    }

    #[test]
    fn complete_reminder_marks_it_done_once() {
        let mut w = logged_in("ann");
        assert_eq!(
            call(&mut w, "CompleteReminder", json!({"reminder_id": "r1"})).unwrap(),
            json!({"status": "success"})
        );
        assert_eq!(reminders(&w, "ann")["r1"]["status"], "complete");
        let cases = [
            (
                json!({"reminder_id": "r1"}),
                "Reminder r1 already completed",
            ),
            (
                json!({"reminder_id": "r2"}),
                "Reminder r2 already completed",
            ),
            (
                json!({"reminder_id": "r9"}),
                "Reminder r9 not found in database",
            ),
            (
                json!({"reminder_id": 7}),
                "Reminder 7 not found in database",
            ),
            (
                json!({"reminder_id": null}),
                "Reminder None not found in database",
            ),
            (json!({"reminder_id": ["r1"]}), "unhashable type: 'list'"),
            (
                json!({}),
                "CompleteReminder.call() missing 1 required positional argument: 'reminder_id'",
            ),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "CompleteReminder", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
        // A user with no list at all: Python's KeyError on the username.
        let mut w = logged_in("bob");
        assert_eq!(
            call(&mut w, "CompleteReminder", json!({"reminder_id": "r1"})).unwrap_err(),
            "'bob'"
        );
    }

    #[test]
    fn delete_reminder_removes_it() {
        let mut w = logged_in("ann");
        assert_eq!(
            call(&mut w, "DeleteReminder", json!({"reminder_id": "r1"})).unwrap(),
            json!({"status": "success"})
        );
        let left: Vec<String> = reminders(&w, "ann")
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(left, ["r2"]);
        assert_eq!(
            call(&mut w, "DeleteReminder", json!({"reminder_id": "r1"})).unwrap_err(),
            "Reminder r1 not found in database"
        );
        let mut w = logged_in("bob");
        assert_eq!(
            call(&mut w, "DeleteReminder", json!({"reminder_id": "r1"})).unwrap_err(),
            "'bob'"
        );
    }

    #[test]
    fn add_reminder_comparator_allows_paraphrase_and_another_time_of_day() {
        let t = &ExactText;
        let add = |params: Value| gold("AddReminder", params, json!({"reminder_id": "x"}));
        let g = add(
            json!({"session_token": "s", "task": "Pay rent", "due_date": "2023-10-01 09:00:00"}),
        );
        let same_day = add(
            json!({"session_token": "s", "task": "Pay rent", "due_date": "2023-10-01 18:30:00"}),
        );
        assert!(add_reminder_matches(CallRef::from(&same_day), &g, t));
        let other_day = add(
            json!({"session_token": "s", "task": "Pay rent", "due_date": "2023-10-02 09:00:00"}),
        );
        assert!(!add_reminder_matches(CallRef::from(&other_day), &g, t));
        let other_task = add(
            json!({"session_token": "s", "task": "Pay bills", "due_date": "2023-10-01 09:00:00"}),
        );
        assert!(!add_reminder_matches(CallRef::from(&other_task), &g, t));
        let no_date = add(json!({"session_token": "s", "task": "Pay rent"}));
        assert!(!add_reminder_matches(CallRef::from(&no_date), &g, t));
        let bad_date = add(json!({"session_token": "s", "task": "Pay rent", "due_date": "soon"}));
        assert!(!add_reminder_matches(CallRef::from(&bad_date), &g, t));
        let other_user = add(
            json!({"session_token": "t", "task": "Pay rent", "due_date": "2023-10-01 09:00:00"}),
        );
        assert!(!add_reminder_matches(CallRef::from(&other_user), &g, t));
        // Extra arguments are not held against it; the id is not compared.
        let g2 = add(json!({"session_token": "s", "task": "Pay rent"}));
        let mut extra = same_day.clone();
        extra.response = json!({"reminder_id": "other"});
        assert!(add_reminder_matches(CallRef::from(&extra), &g2, t));
        let mut failed = extra;
        failed.exception = Some("Invalid due_date: x".into());
        assert!(!add_reminder_matches(CallRef::from(&failed), &g2, t));
    }

    #[test]
    fn get_reminders_comparator_wants_the_gold_ids() {
        let t = &ExactText;
        let listed = |token: &str, ids: &[&str]| {
            let items: Vec<Value> = ids.iter().map(|i| json!({"reminder_id": i})).collect();
            gold(
                "GetReminders",
                json!({"session_token": token}),
                json!({ "reminders": items }),
            )
        };
        assert!(get_reminders_matches(
            CallRef::from(&listed("s", &["a", "b"])),
            &listed("s", &["b"]),
            t
        ));
        assert!(!get_reminders_matches(
            CallRef::from(&listed("s", &["a"])),
            &listed("s", &["a", "b"]),
            t
        ));
        assert!(!get_reminders_matches(
            CallRef::from(&listed("t", &["a"])),
            &listed("s", &["a"]),
            t
        ));
    }

    #[test]
    fn specs_describe_the_reference_signature() {
        assert!(TOOLS
            .iter()
            .all(|t| t.spec.requires_auth && t.spec.database == Some("Reminder")));
        let actions: Vec<&str> = TOOLS
            .iter()
            .filter(|t| t.spec.is_action)
            .map(|t| t.spec.name)
            .collect();
        assert_eq!(
            actions,
            ["AddReminder", "DeleteReminder", "CompleteReminder"]
        );
        assert!(ADD_REMINDER.spec.parameter("task").unwrap().free_text);
        assert!(!ADD_REMINDER.spec.parameter("due_date").unwrap().required);
        assert_eq!(
            COMPLETE_REMINDER
                .spec
                .parameter("reminder_id")
                .unwrap()
                .format,
            ValueFormat::Id
        );
    }
}
