//! Alarm: alarms at a time of day, per user.
//!
//! Database `Alarm`: `{username: {alarm_id: {"alarm_id", "time"}}}`.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::Tool;
use crate::dialogue::GoldCall;
use crate::sim::object::object;
use crate::sim::pyargs::{bind, dict_key, display};
use crate::sim::pytime::{strptime, TIME};
use crate::sim::reply::Reply;
use crate::sim::table::Record;
use crate::sim::ToolCtx;
use crate::suite::catalog::CallRef;
use crate::suite::catalog::{
    FieldSpec, ParamSpec, ParamType, SessionEffect, ToolSpec, ValueFormat,
};
use crate::suite::TextSimilarity;
use crate::suites::tooltalk::compare::{lists_at_least, same_outcome_and_user};
use crate::suites::tooltalk::world::Session;

pub const DESCRIPTION: &str = "Set, list and remove the user's alarms.";

const DATABASE: &str = "Alarm";

pub static TOOLS: &[&Tool] = &[&ADD_ALARM, &DELETE_ALARM, &FIND_ALARMS];

const ALARM_ID: &str = "The alarm's id, formatted xxxx-xxxx.";

pub static ADD_ALARM: Tool = Tool {
    spec: ToolSpec {
        name: "AddAlarm",
        group: "Alarm",
        description: "Sets an alarm that rings at the given time of day.",
        parameters: &[ParamSpec {
            format: ValueFormat::Time,
            ..ParamSpec::new(
                "time",
                ParamType::String,
                "When the alarm rings, as %H:%M:%S.",
                true,
            )
        }],
        returns: &[FieldSpec::new("alarm_id", "string", ALARM_ID)],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: arguments_and_exception_match,
    },
    run: |ctx, params| add_alarm(ctx, params).map(Reply::from),
};

fn add_alarm(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind("AddAlarm", params, &["session_token", "time"], &[])?;
    let time = args.value("time");
    strptime(time, TIME)?;
    let username = ctx.check_session_token(args.value("session_token"))?;
    let alarm_id = ctx.rng.hex_id(&[4, 4]);
    let alarms = ctx.own_mut().get_or_insert_with(&username, Record::new);
    if let Some(alarms) = alarms.as_object_mut() {
        alarms.insert(&alarm_id, object!({"alarm_id": &alarm_id, "time": time}));
    }
    Ok(object!({ "alarm_id": alarm_id }))
}

/// Actions are judged by what was asked, not by the id the world made up:
/// same exception, and every gold argument given with the same value.
fn arguments_and_exception_match(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    _text: &dyn TextSimilarity,
) -> bool {
    prediction.exception == gold.exception.as_deref()
        && crate::suites::tooltalk::compare::gold_arguments_equal(prediction, gold)
}

pub static DELETE_ALARM: Tool = Tool {
    spec: ToolSpec {
        name: "DeleteAlarm",
        group: "Alarm",
        description: "Removes one of the user's alarms by its id.",
        parameters: &[ParamSpec {
            format: ValueFormat::Id,
            ..ParamSpec::new("alarm_id", ParamType::String, ALARM_ID, true)
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
    run: |ctx, params| delete_alarm(ctx, params).map(Reply::from),
};

fn delete_alarm(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind("DeleteAlarm", params, &["session_token", "alarm_id"], &[])?;
    let alarm_id = args.value("alarm_id");
    let username = ctx.check_session_token(args.value("session_token"))?;
    let not_found = || format!("Alarm {} not found.", display(alarm_id));
    let alarms = ctx
        .own_mut()
        .get_mut(&username)
        .and_then(Record::as_object_mut)
        .ok_or_else(not_found)?;
    // `alarm_id not in alarms`: a list or dict cannot be a key at all.
    let key = dict_key(alarm_id)?.ok_or_else(not_found)?;
    alarms.shift_remove(key).ok_or_else(not_found)?;
    Ok(json!({"status": "success"}))
}

pub static FIND_ALARMS: Tool = Tool {
    spec: ToolSpec {
        name: "FindAlarms",
        group: "Alarm",
        description: "Lists the user's alarms, optionally only those between two times of day.",
        parameters: &[
            ParamSpec {
                format: ValueFormat::Time,
                bound: true,
                ..ParamSpec::new(
                    "start_range",
                    ParamType::String,
                    "Earliest alarm time to list, as %H:%M:%S.",
                    false,
                )
            },
            ParamSpec {
                format: ValueFormat::Time,
                bound: true,
                ..ParamSpec::new(
                    "end_range",
                    ParamType::String,
                    "Latest alarm time to list, as %H:%M:%S.",
                    false,
                )
            },
        ],
        returns: &[FieldSpec {
            fields: &[
                FieldSpec::new("alarm_id", "string", ALARM_ID),
                FieldSpec::new("time", "string", "When the alarm rings, as %H:%M:%S."),
            ],
            ..FieldSpec::new(
                "alarms",
                "array",
                "The alarms in the range, in the order they were set.",
            )
        }],
        is_action: false,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: find_alarms_matches,
    },
    run: find_alarms,
};

fn find_alarms(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Reply, String> {
    let args = bind(
        "FindAlarms",
        params,
        &["session_token"],
        &["start_range", "end_range"],
    )?;
    let username = ctx.check_session_token(args.value("session_token"))?;
    let Some(alarms) = ctx.own().get(&username).and_then(Record::as_object) else {
        return Ok(json!({"alarms": []}).into());
    };
    let start = args
        .get("start_range")
        .map(|v| strptime(v, TIME))
        .transpose()?;
    let end = args
        .get("end_range")
        .map(|v| strptime(v, TIME))
        .transpose()?;
    if let (Some(s), Some(e)) = (start, end) {
        if s > e {
            return Err("Start range must be earlier than end range.".to_string());
        }
    }
    let mut found = Vec::new();
    for alarm in alarms.shared_values() {
        let at = strptime(alarm.get("time").unwrap_or(&Value::Null), TIME)?;
        if start.is_some_and(|s| at < s) || end.is_some_and(|e| at > e) {
            continue;
        }
        found.push(Arc::clone(alarm));
    }
    Ok(Reply::Listed {
        key: "alarms",
        items: found,
    })
}

/// A query is right when it found at least the alarms the gold call found.
fn find_alarms_matches(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    _text: &dyn TextSimilarity,
) -> bool {
    same_outcome_and_user(prediction, gold)
        && lists_at_least(prediction, gold, "alarms", "alarm_id")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Databases;
    use crate::suites::tooltalk::plugins::testing::{self, call};
    use crate::suites::tooltalk::World;

    fn databases() -> Databases {
        testing::databases([
            (
                "Account",
                json!({
                    "ann": {"username": "ann", "session_token": null},
                    "bob": {"username": "bob", "session_token": null},
                }),
            ),
            (
                "Alarm",
                json!({"ann": {"a1": {"alarm_id": "a1", "time": "07:30:00"}}}),
            ),
        ])
    }

    fn logged_in(user: &str) -> World {
        testing::world(&databases(), Some(user), None)
    }

    /// `alarm_id not in alarms` raises for a list or dict id, as in the
    /// other tools that look an id up; a user with no alarms is told the
    /// alarm is not found first, whatever the id.
    #[test]
    fn delete_alarm_with_a_list_or_dict_id_is_unhashable() {
        let mut w = logged_in("ann");
        for (id, want) in [
            (json!(["a1"]), "unhashable type: 'list'"),
            (json!([]), "unhashable type: 'list'"),
            (json!({"a1": 1}), "unhashable type: 'dict'"),
            (json!(5), "Alarm 5 not found."),
            (json!(null), "Alarm None not found."),
            (json!(true), "Alarm True not found."),
        ] {
            let params = json!({ "alarm_id": id });
            assert_eq!(
                call(&mut w, "DeleteAlarm", params).unwrap_err(),
                want,
                "{id}"
            );
        }
        let table = w.table("Alarm").unwrap();
        assert!(table["ann"].get("a1").is_some(), "nothing was deleted");

        let mut w = logged_in("bob");
        assert_eq!(
            call(&mut w, "DeleteAlarm", json!({"alarm_id": ["a1"]})).unwrap_err(),
            "Alarm ['a1'] not found."
        );
        let mut w = logged_in("ann");
        assert_eq!(
            call(&mut w, "DeleteAlarm", json!({"alarm_id": "a1"})).unwrap(),
            json!({"status": "success"})
        );
    }

    /// A time that is not text raises what `datetime.strptime` raises,
    /// naming `None` itself rather than its type.
    #[test]
    fn alarm_times_that_are_not_text_raise_strptime_texts() {
        let mut w = logged_in("ann");
        for (time, want) in [
            (json!(null), "None"),
            (json!(7), "int"),
            (json!(7.5), "float"),
            (json!(false), "bool"),
            (json!(["07:00:00"]), "list"),
            (json!({}), "dict"),
        ] {
            let want = format!("strptime() argument 1 must be str, not {want}");
            let params = json!({ "time": time });
            assert_eq!(call(&mut w, "AddAlarm", params).unwrap_err(), want);
            let params = json!({"start_range": "06:00:00", "end_range": time});
            if !time.is_null() {
                assert_eq!(call(&mut w, "FindAlarms", params).unwrap_err(), want);
            }
        }
        // A null range is no bound at all.
        let params = json!({"start_range": null, "end_range": null});
        assert_eq!(
            call(&mut w, "FindAlarms", params).unwrap(),
            json!({"alarms": [{"alarm_id": "a1", "time": "07:30:00"}]})
        );
    }
}
