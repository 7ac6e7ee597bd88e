//! Message: text messages between users.
//!
//! Database `Message`: `{username: {message_id: {"message_id", "timestamp",
//! "sender", "message"}}}`, the messages each user received. Messages
//! timestamped after the conversation's clock have not arrived yet and are
//! never found. Sending checks the text and makes up an id but, as in the
//! reference, stores nothing.

use std::sync::Arc;

use chrono::NaiveDateTime;
use serde_json::{json, Map, Value};

use super::account::{item_field, session_username};
use super::Tool;
use crate::dialogue::GoldCall;
use crate::sim::object::object;
use crate::sim::pyargs::{bind, lookup, lower, py_eq, py_key, py_split, truthy};
use crate::sim::pytime::{strptime, TIMESTAMP};
use crate::sim::reply::Reply;
use crate::sim::ToolCtx;
use crate::suite::catalog::CallRef;
use crate::suite::catalog::{
    FieldSpec, ParamSpec, ParamType, SessionEffect, ToolSpec, ValueFormat,
};
use crate::suite::TextSimilarity;
use crate::suites::tooltalk::compare::{lists_at_least, same_outcome_and_user};
use crate::suites::tooltalk::world::Session;

pub const DESCRIPTION: &str =
    "Send text messages to other users and search the messages the user received.";

const DATABASE: &str = "Message";

pub static TOOLS: &[&Tool] = &[&SEND_MESSAGE, &SEARCH_MESSAGES];

/// The reference accepts a paraphrased message when the embeddings of the
/// two texts have a cosine of at least this.
const MESSAGE_THRESHOLD: f64 = 0.8;

/// At most this many messages, newest first, answer a search.
const MAX_RESULTS: usize = 5;

const MESSAGE_ID: &str = "The message's id, formatted xxxxxxxx-xxxxxxxx.";

pub static SEND_MESSAGE: Tool = Tool {
    spec: ToolSpec {
        name: "SendMessage",
        group: "Messages",
        description: "Sends a text message from the user to another user.",
        parameters: &[
            ParamSpec::new(
                "receiver",
                ParamType::String,
                "The username of the person to send it to.",
                true,
            ),
            ParamSpec {
                free_text: true,
                ..ParamSpec::new(
                    "message",
                    ParamType::String,
                    "The text to send; it may not be empty.",
                    true,
                )
            },
        ],
        returns: &[FieldSpec::new("message_id", "string", MESSAGE_ID)],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        // The reference's SendMessage has no database: the message is not kept.
        database: None,
        matches: send_message_matches,
    },
    run: |ctx, params| send_message(ctx, params).map(Reply::from),
};

fn send_message(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind(
        "SendMessage",
        params,
        &["session_token", "receiver", "message"],
        &[],
    )?;
    ctx.check_session_token(args.value("session_token"))?;
    // Any receiver is accepted: the name might resolve somewhere else.
    if args.value("message").as_str() == Some("") {
        return Err("Message cannot be empty.".to_string());
    }
    let message_id = ctx.rng.hex_id(&[8, 8]);
    Ok(object!({ "message_id": message_id }))
}

/// Sending is judged by what was said, not by the id: the same exception,
/// the same sender (session), and a text that says much the same as the
/// gold one. The receiver is not compared: the reference's check compares
/// the prediction's receiver with itself, so any receiver passes.
fn send_message_matches(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    text: &dyn TextSimilarity,
) -> bool {
    let (predicted, wanted) = (prediction.parameters, &gold.request.parameters);
    if prediction.exception != gold.exception.as_deref()
        || lookup(predicted, "session_token") != lookup(wanted, "session_token")
    {
        return false;
    }
    match wanted.get("message") {
        Some(Value::String(want)) => text.similar(
            predicted.get("message").and_then(Value::as_str),
            want,
            MESSAGE_THRESHOLD,
        ),
        _ => false,
    }
}

pub static SEARCH_MESSAGES: Tool = Tool {
    spec: ToolSpec {
        name: "SearchMessages",
        group: "Messages",
        description: "Finds received messages by keywords, sender and time; answers with the five most recent matches.",
        parameters: &[
            ParamSpec::new(
                "query",
                ParamType::String,
                "Keywords to look for in the message text.",
                false,
            ),
            ParamSpec {
                enum_values: &["any", "all"],
                ..ParamSpec::new(
                    "match_type",
                    ParamType::String,
                    "Whether a message must contain any (the default) or all of the keywords.",
                    false,
                )
            },
            ParamSpec::new(
                "sender",
                ParamType::String,
                "Only messages from this username.",
                false,
            ),
            ParamSpec {
                format: ValueFormat::Timestamp,
                bound: true,
                ..ParamSpec::new(
                    "start_date",
                    ParamType::String,
                    "Only messages received at or after this moment, as %Y-%m-%d %H:%M:%S.",
                    false,
                )
            },
            ParamSpec {
                format: ValueFormat::Timestamp,
                bound: true,
                ..ParamSpec::new(
                    "end_date",
                    ParamType::String,
                    "Only messages received at or before this moment, as %Y-%m-%d %H:%M:%S.",
                    false,
                )
            },
        ],
        returns: &[FieldSpec {
            fields: &[
                FieldSpec::new("message_id", "string", MESSAGE_ID),
                FieldSpec::new(
                    "timestamp",
                    "string",
                    "When it arrived, as %Y-%m-%d %H:%M:%S.",
                ),
                FieldSpec::new("sender", "string", "The sender's username."),
                FieldSpec::new("message", "string", "The text of the message."),
            ],
            ..FieldSpec::new(
                "messages",
                "array",
                "Up to five matching messages, newest first.",
            )
        }],
        is_action: false,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: search_messages_matches,
    },
    run: search_messages,
};

fn search_messages(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Reply, String> {
    let args = bind(
        "SearchMessages",
        params,
        &["session_token"],
        &["query", "match_type", "sender", "start_date", "end_date"],
    )?;
    let username = session_username(ctx, args.value("session_token"))?;
    // A user with no messages gets an empty answer before any argument is
    // checked.
    let Some(messages) = ctx.own().get(&py_key(&username)?) else {
        return Ok(json!({"messages": []}).into());
    };
    let (query, sender) = (args.get("query"), args.get("sender"));
    let (start_date, end_date) = (args.get("start_date"), args.get("end_date"));
    if query.is_none() && sender.is_none() && start_date.is_none() && end_date.is_none() {
        return Err(
            "At least one of query, sender, start_date, end_date must be provided.".to_string(),
        );
    }
    // Defaults to "any" only when left out: an explicit null is refused.
    let match_all = match args.raw().get("match_type").map(Value::as_str) {
        None | Some(Some("any")) => false,
        Some(Some("all")) => true,
        Some(_) => return Err("match_type must be either \"any\" or \"all\".".to_string()),
    };
    let start = start_date.map(|d| strptime(d, TIMESTAMP)).transpose()?;
    let end = end_date.map(|d| strptime(d, TIMESTAMP)).transpose()?;
    if let (Some(s), Some(e)) = (start, end) {
        if s > e {
            return Err("Start date must be earlier than end date.".to_string());
        }
    }
    let keywords = match query.filter(|q| truthy(q)) {
        Some(q) => Some(lower(q)?),
        None => None,
    };
    let keywords: Option<Vec<&str>> = keywords.as_deref().map(py_split);

    let Some(messages) = messages.as_object() else {
        return Err(crate::sim::pyargs::no_attribute(
            &messages.to_value(),
            "values",
        ));
    };
    let mut matched: Vec<(NaiveDateTime, &Arc<Value>)> = Vec::new();
    for message in messages.shared_values() {
        let at = strptime(item_field(message, "timestamp")?, TIMESTAMP)?;
        if ctx.now < at {
            continue; // not received yet
        }
        if let Some(sender) = sender {
            if !py_eq(sender, item_field(message, "sender")?) {
                continue;
            }
        }
        if start.is_some_and(|s| s > at) || end.is_some_and(|e| e < at) {
            continue;
        }
        if let Some(keywords) = &keywords {
            // With no keywords (a blank query) the text is never read.
            let hits = if keywords.is_empty() {
                Vec::new()
            } else {
                let body = lower(item_field(message, "message")?)?;
                keywords.iter().map(|k| body.contains(k)).collect()
            };
            let found = if match_all {
                hits.iter().all(|h| *h)
            } else {
                hits.iter().any(|h| *h)
            };
            if !found {
                continue;
            }
        }
        matched.push((at, message));
    }
    // Newest first; a stable sort keeps equal times in database order, as
    // Python's `sort(reverse=True)` does.
    matched.sort_by_key(|m| std::cmp::Reverse(m.0));
    let items = matched
        .into_iter()
        .take(MAX_RESULTS)
        .map(|(_, message)| Arc::clone(message))
        .collect();
    Ok(Reply::Listed {
        key: "messages",
        items,
    })
}

/// A search is right when it raised what the gold call raised, ran as the
/// same user, and found at least the messages the gold call found (by id;
/// more are fine).
fn search_messages_matches(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    _text: &dyn TextSimilarity,
) -> bool {
    same_outcome_and_user(prediction, gold)
        && lists_at_least(prediction, gold, "messages", "message_id")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Databases;
    use crate::suite::similarity::ExactText;
    use crate::suites::tooltalk::plugins::testing::{self, call, gold};
    use crate::suites::tooltalk::World;

    // python3: r = random.Random(489); [f"{r.randint(0, 0xffffffff):08x}-{r.randint(0, 0xffffffff):08x}" for _ in range(2)]
    const FIRST_ID: &str = "e149636f-ecc3f121";
    const SECOND_ID: &str = "5c5373e0-ecf4712d";

    fn msg(id: &str, timestamp: &str, sender: &str, text: &str) -> (String, Value) {
        let record =
            json!({"message_id": id, "timestamp": timestamp, "sender": sender, "message": text});
        (id.to_string(), record)
    }

    fn databases() -> Databases {
        let ann: Map<String, Value> = [
            msg("m1", "2023-09-05 10:00:00", "bob", "Running LATE for lunch"),
            msg("m2", "2023-09-08 09:00:00", "cy", "Lunch on Friday?"),
            msg("m3", "2023-09-08 09:00:00", "bob", "I am late again"),
            msg("m4", "2023-09-20 09:00:00", "bob", "late from the future"),
            msg("m5", "2023-09-01 09:00:00", "dee", "weekly news"),
            msg("m6", "2023-09-02 09:00:00", "dee", "weekly news"),
            msg("m7", "2023-09-03 09:00:00", "dee", "weekly news"),
        ]
        .into_iter()
        .collect();
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
                "Message",
                json!({"ann": ann, "cy": {"broken": {"message_id": "broken", "message": "x"}}}),
            ),
        ];
        testing::databases(tables)
    }

    /// A world at 2023-09-10 12:00:00 with `user` logged in.
    fn logged_in(user: &str) -> World {
        testing::world(&databases(), Some(user), None)
    }

    #[test]
    fn send_message_refuses_empty_text_then_draws_an_id() {
        let mut w = logged_in("ann");
        assert_eq!(
            call(
                &mut w,
                "SendMessage",
                json!({"receiver": "bob", "message": ""})
            )
            .unwrap_err(),
            "Message cannot be empty."
        );
        assert_eq!(
            call(&mut w, "SendMessage", json!({"receiver": "bob"})).unwrap_err(),
            "SendMessage.call() missing 1 required positional argument: 'message'"
        );
        assert_eq!(
            call(&mut w, "SendMessage", json!({"to": "bob", "message": "hi"})).unwrap_err(),
            "SendMessage.call() got an unexpected keyword argument 'to'"
        );
        // Any receiver, even one nobody knows, and any non-empty value.
        assert_eq!(
            call(
                &mut w,
                "SendMessage",
                json!({"receiver": "nobody", "message": "hi"})
            )
            .unwrap(),
            json!({"message_id": FIRST_ID})
        );
        assert_eq!(
            call(&mut w, "SendMessage", json!({"receiver": 3, "message": 0})).unwrap(),
            json!({"message_id": SECOND_ID})
        );
        // Nothing is stored.
        assert_eq!(w.table("Message"), databases().get("Message"));
        let mut w = World::new(&databases(), w.now());
        assert_eq!(
            call(
                &mut w,
                "SendMessage",
                json!({"receiver": "bob", "message": "hi"})
            )
            .unwrap_err(),
            "User is not logged in"
        );
    }

    fn ids(result: Value) -> Vec<String> {
        result["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["message_id"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn search_messages_filters_sorts_and_hides_unreceived_messages() {
        let mut w = logged_in("ann");
        let mut search = |params: Value| call(&mut w, "SearchMessages", params).map(ids);
        assert_eq!(search(json!({"query": "late"})).unwrap(), ["m3", "m1"]);
        assert_eq!(
            search(json!({"query": "LATE lunch", "match_type": "all"})).unwrap(),
            ["m1"]
        );
        assert_eq!(
            search(json!({"query": "friday again", "match_type": "any"})).unwrap(),
            ["m2", "m3"]
        );
        assert_eq!(search(json!({"sender": "bob"})).unwrap(), ["m3", "m1"]);
        assert_eq!(
            search(json!({"start_date": "2023-09-02 09:00:00", "end_date": "2023-09-08 09:00:00"}))
                .unwrap(),
            ["m2", "m3", "m1", "m7", "m6"]
        );
        // Six received messages match; the oldest falls off.
        assert_eq!(
            search(json!({"end_date": "2023-09-30 00:00:00"})).unwrap(),
            ["m2", "m3", "m1", "m7", "m6"]
        );
        // An empty query counts as given but filters nothing; a blank one
        // has no keywords, so "any" finds nothing and "all" everything.
        assert_eq!(search(json!({"query": ""})).unwrap().len(), 5);
        assert_eq!(search(json!({"query": "  "})).unwrap().len(), 0);
        assert_eq!(
            search(json!({"query": " ", "match_type": "all"}))
                .unwrap()
                .len(),
            5
        );
        assert_eq!(search(json!({"query": 0})).unwrap().len(), 5);
        let full = call(&mut w, "SearchMessages", json!({"query": "friday"})).unwrap();
        assert_eq!(
            full["messages"][0],
            databases().get("Message").unwrap()["ann"]["m2"]
        );
    }

    #[test]
    fn search_messages_errors_follow_the_reference_order() {
        let mut w = logged_in("ann");
        let cases = [
            (
                json!({}),
                "At least one of query, sender, start_date, end_date must be provided.",
            ),
            (
                json!({"query": null, "match_type": "all"}),
                "At least one of query, sender, start_date, end_date must be provided.",
            ),
            (
                json!({"query": "x", "match_type": "most"}),
                "match_type must be either \"any\" or \"all\".",
            ),
            (
                json!({"query": "x", "match_type": null}),
                "match_type must be either \"any\" or \"all\".",
            ),
            (
                json!({"start_date": "2023-09-08"}),
                "time data '2023-09-08' does not match format '%Y-%m-%d %H:%M:%S'",
            ),
            (
                json!({"end_date": 5}),
                "strptime() argument 1 must be str, not int",
            ),
            (
                json!({"start_date": "2023-09-08 00:00:00", "end_date": "2023-09-07 00:00:00"}),
                "Start date must be earlier than end date.",
            ),
            (
                json!({"query": ["late"]}),
                "'list' object has no attribute 'lower'",
            ),
            (
                json!({"query": "x", "limit": 3}),
                "SearchMessages.call() got an unexpected keyword argument 'limit'",
            ),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "SearchMessages", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
        // No messages at all: an empty answer before any argument is checked.
        let mut w = logged_in("bob");
        assert_eq!(
            call(&mut w, "SearchMessages", json!({"match_type": 3})).unwrap(),
            json!({"messages": []})
        );
        // A record without a timestamp: Python's KeyError.
        let mut w = logged_in("cy");
        assert_eq!(
            call(&mut w, "SearchMessages", json!({"query": "x"})).unwrap_err(),
            "'timestamp'"
        );
    }

    #[test]
    fn comparators_follow_the_reference() {
        let t = &ExactText;
        let sent = |token: &str, receiver: &str, text: &str| {
            gold(
                "SendMessage",
                json!({"session_token": token, "receiver": receiver, "message": text}),
                json!({"message_id": "x"}),
            )
        };
        let g = sent("s", "bob", "See you at 5");
        assert!(send_message_matches(
            CallRef::from(&sent("s", "bob", "See you at 5")),
            &g,
            t
        ));
        // The reference never compares receivers.
        assert!(send_message_matches(
            CallRef::from(&sent("s", "cy", "See you at 5")),
            &g,
            t
        ));
        assert!(!send_message_matches(
            CallRef::from(&sent("s", "bob", "See you at 6")),
            &g,
            t
        ));
        assert!(!send_message_matches(
            CallRef::from(&sent("t", "bob", "See you at 5")),
            &g,
            t
        ));
        let mut failed = sent("s", "bob", "See you at 5");
        failed.exception = Some("Message cannot be empty.".into());
        assert!(!send_message_matches(CallRef::from(&failed), &g, t));
        let mut no_text = sent("s", "bob", "x");
        no_text.request.parameters.remove("message");
        assert!(!send_message_matches(CallRef::from(&no_text), &g, t));

        let found = |ids: &[&str]| {
            let messages: Vec<Value> = ids.iter().map(|i| json!({"message_id": i})).collect();
            gold(
                "SearchMessages",
                json!({"session_token": "s", "query": "q"}),
                json!({ "messages": messages }),
            )
        };
        assert!(search_messages_matches(
            CallRef::from(&found(&["1", "2"])),
            &found(&["2"]),
            t
        ));
        assert!(!search_messages_matches(
            CallRef::from(&found(&["1"])),
            &found(&["2"]),
            t
        ));
        let mut other_user = found(&["2"]);
        other_user.request.parameters["session_token"] = json!("t");
        assert!(!search_messages_matches(
            CallRef::from(&other_user),
            &found(&["2"]),
            t
        ));
    }

    #[test]
    fn specs_describe_the_reference_signature() {
        assert!(TOOLS
            .iter()
            .all(|t| t.spec.requires_auth && t.spec.group == "Messages"));
        assert!(SEND_MESSAGE.spec.is_action && !SEARCH_MESSAGES.spec.is_action);
        assert_eq!(SEARCH_MESSAGES.spec.database, Some("Message"));
        assert!(SEARCH_MESSAGES.spec.parameters.iter().all(|p| !p.required));
        assert!(SEND_MESSAGE.spec.parameters.iter().all(|p| p.required));
        assert!(SEND_MESSAGE.spec.parameter("message").unwrap().free_text);
        assert!(!SEND_MESSAGE.spec.parameter("receiver").unwrap().free_text);
    }
}
