//! Email: search the user's inbox and send mail.
//!
//! Database `Email`: `{username: {email_id: {"email_id", "date", "sender",
//! "receivers", "subject", "body"}}}`. Mail dated after the conversation's
//! clock has not arrived yet and is never found. Sending checks the
//! addresses and makes up an id but, as in the reference, stores nothing.

use std::sync::Arc;

use chrono::NaiveDateTime;
use serde_json::{json, Map, Value};

use super::Tool;
use crate::dialogue::GoldCall;
use crate::sim::object::object;
use crate::sim::pyargs::{
    bind, display, key_error, lookup, lower, py_eq, py_split, truthy, type_name,
};
use crate::sim::pytime::{strptime, TIMESTAMP};
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

pub const DESCRIPTION: &str = "Search the user's inbox and send email from their account.";

const DATABASE: &str = "Email";

pub static TOOLS: &[&Tool] = &[&SEND_EMAIL, &SEARCH_INBOX];

/// The reference accepts a paraphrased subject at this cosine similarity...
const SUBJECT_THRESHOLD: f64 = 0.9;
/// ...and a paraphrased body at this one.
const BODY_THRESHOLD: f64 = 0.8;

/// At most this many emails, newest first, answer a search.
const MAX_RESULTS: usize = 5;

const EMAIL_ID: &str = "The email's id, formatted xx-xxxx-xxxxxxxx.";

pub static SEND_EMAIL: Tool = Tool {
    spec: ToolSpec {
        name: "SendEmail",
        group: "Email",
        description: "Sends an email from the user's account.",
        parameters: &[
            ParamSpec {
                // Applies to every address in the list.
                format: ValueFormat::Email,
                ..ParamSpec::new(
                    "to",
                    ParamType::Array(&ParamType::String),
                    "The addresses to send to.",
                    true,
                )
            },
            ParamSpec {
                free_text: true,
                ..ParamSpec::new("subject", ParamType::String, "The subject line.", true)
            },
            ParamSpec {
                free_text: true,
                ..ParamSpec::new("body", ParamType::String, "The text of the message.", true)
            },
        ],
        returns: &[FieldSpec::new("email_id", "string", EMAIL_ID)],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        // The reference's SendEmail has no database: the sent mail is not kept.
        database: None,
        matches: send_email_matches,
    },
    run: |ctx, params| send_email(ctx, params).map(Reply::from),
};

fn send_email(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind(
        "SendEmail",
        params,
        &["session_token", "to", "subject", "body"],
        &[],
    )?;
    ctx.check_session_token(args.value("session_token"))?;
    // Python iterates whatever `to` is: a string gives its characters, a
    // dict its keys.
    let to = args.value("to");
    let addresses: Vec<Value> = match to {
        Value::Array(items) => items.clone(),
        Value::String(s) => s.chars().map(|c| Value::String(c.into())).collect(),
        Value::Object(keys) => keys.keys().map(|k| Value::String(k.clone())).collect(),
        other => return Err(format!("'{}' object is not iterable", type_name(other))),
    };
    for address in &addresses {
        let Value::String(text) = address else {
            return Err(format!(
                "expected string or bytes-like object, got '{}'",
                type_name(address)
            ));
        };
        if !is_email_address(text) {
            return Err(format!(
                "{} is not a valid email address.",
                display(address)
            ));
        }
    }
    let email_id = ctx.rng.hex_id(&[2, 4, 8]);
    Ok(object!({ "email_id": email_id }))
}

/// The reference's address check: word characters, dots and hyphens on
/// both sides of one `@`. Python's `$` also accepts one trailing newline,
/// and its `\w` means letters, digits and `_`.
fn is_email_address(text: &str) -> bool {
    super::account::is_email_text(text)
}

/// Sending is judged by what was sent, not by the id: same exception, same
/// user, the same set of recipients in any order, and a subject and body
/// that say much the same as the gold ones.
fn send_email_matches(prediction: CallRef<'_>, gold: &GoldCall, text: &dyn TextSimilarity) -> bool {
    let (predicted, wanted) = (prediction.parameters, &gold.request.parameters);
    if prediction.exception != gold.exception.as_deref()
        || lookup(predicted, "session_token") != lookup(wanted, "session_token")
    {
        return false;
    }
    let as_set = |v: Option<&Value>| -> Option<Vec<Value>> {
        let mut items: Vec<Value> = Vec::new();
        for item in v?.as_array()? {
            if !items.iter().any(|seen| py_eq(seen, item)) {
                items.push(item.clone());
            }
        }
        Some(items)
    };
    let (Some(got_to), Some(want_to)) = (as_set(predicted.get("to")), as_set(wanted.get("to")))
    else {
        return false;
    };
    if got_to.len() != want_to.len() || !want_to.iter().all(|w| got_to.iter().any(|g| py_eq(g, w)))
    {
        return false;
    }
    let similar = |key: &str, threshold: f64| match lookup(wanted, key) {
        Some(Value::String(want)) => text.similar(
            lookup(predicted, key).and_then(Value::as_str),
            want,
            threshold,
        ),
        _ => false,
    };
    similar("subject", SUBJECT_THRESHOLD) && similar("body", BODY_THRESHOLD)
}

pub static SEARCH_INBOX: Tool = Tool {
    spec: ToolSpec {
        name: "SearchInbox",
        group: "Email",
        description: "Finds received emails by keywords, sender and date; answers with the five most recent matches.",
        parameters: &[
            ParamSpec::new(
                "query",
                ParamType::String,
                "Keywords to look for in the subject or body.",
                false,
            ),
            ParamSpec {
                enum_values: &["any", "all"],
                ..ParamSpec::new(
                    "match_type",
                    ParamType::String,
                    "Whether an email must contain any (the default) or all of the keywords.",
                    false,
                )
            },
            ParamSpec {
                format: ValueFormat::Email,
                ..ParamSpec::new(
                    "sender",
                    ParamType::String,
                    "Only emails from this address.",
                    false,
                )
            },
            ParamSpec {
                format: ValueFormat::Timestamp,
                bound: true,
                ..ParamSpec::new(
                    "start_date",
                    ParamType::String,
                    "Only emails received at or after this moment, as %Y-%m-%d %H:%M:%S.",
                    false,
                )
            },
            ParamSpec {
                format: ValueFormat::Timestamp,
                bound: true,
                ..ParamSpec::new(
                    "end_date",
                    ParamType::String,
                    "Only emails received at or before this moment, as %Y-%m-%d %H:%M:%S.",
                    false,
                )
            },
        ],
        returns: &[FieldSpec {
            fields: &[
                FieldSpec::new("email_id", "string", EMAIL_ID),
                FieldSpec::new("date", "string", "When it arrived, as %Y-%m-%d %H:%M:%S."),
                FieldSpec::new("sender", "string", "The sender's address."),
                FieldSpec::new("receivers", "array", "The addresses it was sent to."),
                FieldSpec::new("subject", "string", "The subject line."),
                FieldSpec::new("body", "string", "The text of the message."),
            ],
            ..FieldSpec::new(
                "emails",
                "array",
                "Up to five matching emails, newest first.",
            )
        }],
        is_action: false,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: search_inbox_matches,
    },
    run: search_inbox,
};

fn search_inbox(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Reply, String> {
    let args = bind(
        "SearchInbox",
        params,
        &["session_token"],
        &["query", "match_type", "sender", "start_date", "end_date"],
    )?;
    let username = ctx.check_session_token(args.value("session_token"))?;
    let emails = match ctx.own().get(&username).and_then(Record::as_object) {
        Some(emails) if !emails.is_empty() => emails,
        _ => return Ok(json!({"emails": []}).into()),
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

    let mut matched: Vec<(NaiveDateTime, &Arc<Value>)> = Vec::new();
    for email in emails.shared_values() {
        let field = |name: &str| email.get(name).ok_or_else(|| key_error(name));
        let date = strptime(field("date")?, TIMESTAMP)?;
        if ctx.now < date {
            continue; // not received yet
        }
        if let Some(sender) = sender {
            if !py_eq(sender, field("sender")?) {
                continue;
            }
        }
        if start.is_some_and(|s| s > date) || end.is_some_and(|e| e < date) {
            continue;
        }
        if let Some(keywords) = &keywords {
            if !keywords_match(email, keywords, match_all)? {
                continue;
            }
        }
        matched.push((date, email));
    }
    // Newest first; a stable sort keeps equal dates in database order, as
    // Python's `sort(reverse=True)` does.
    matched.sort_by_key(|m| std::cmp::Reverse(m.0));
    let items = matched
        .into_iter()
        .take(MAX_RESULTS)
        .map(|(_, email)| Arc::clone(email))
        .collect();
    Ok(Reply::Listed {
        key: "emails",
        items,
    })
}

/// Whether the email's body or subject contains any (or all) keywords. The
/// subject is read only for keywords missing from the body, as Python's
/// `or` does, which decides which field's error shows first.
fn keywords_match(email: &Value, keywords: &[&str], match_all: bool) -> Result<bool, String> {
    let (mut body, mut subject) = (None, None);
    let mut hits = Vec::with_capacity(keywords.len());
    for keyword in keywords {
        if body.is_none() {
            body = Some(lower(email.get("body").ok_or_else(|| key_error("body"))?)?);
        }
        if body.as_deref().is_some_and(|b| b.contains(keyword)) {
            hits.push(true);
            continue;
        }
        if subject.is_none() {
            subject = Some(lower(
                email.get("subject").ok_or_else(|| key_error("subject"))?,
            )?);
        }
        hits.push(subject.as_deref().is_some_and(|s| s.contains(keyword)));
    }
    Ok(if match_all {
        hits.iter().all(|h| *h)
    } else {
        hits.iter().any(|h| *h)
    })
}

/// A search is right when it raised what the gold call raised, ran as the
/// same user, and found at least the emails the gold call found.
fn search_inbox_matches(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    _text: &dyn TextSimilarity,
) -> bool {
    same_outcome_and_user(prediction, gold)
        && lists_at_least(prediction, gold, "emails", "email_id")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Databases;
    use crate::suite::similarity::ExactText;
    use crate::suites::tooltalk::plugins::testing::{self, call, gold};
    use crate::suites::tooltalk::World;

    // python3: r = random.Random(489); [f"{r.randint(0, 0xff):02x}-{r.randint(0, 0xffff):04x}-{r.randint(0, 0xffffffff):08x}" for _ in range(2)]
    const FIRST_ID: &str = "5b-dd80-9f8a27ab";
    const SECOND_ID: &str = "07-1add-8af336bb";

    fn mail(id: &str, date: &str, sender: &str, subject: &str, body: &str) -> (String, Value) {
        let record = json!({"email_id": id, "date": date, "sender": sender,
                            "receivers": ["ann@x.com"], "subject": subject, "body": body});
        (id.to_string(), record)
    }

    fn databases() -> Databases {
        let ann: Map<String, Value> = [
            mail(
                "m1",
                "2023-09-05 10:00:00",
                "a@x.com",
                "Invoice due",
                "Please pay the INVOICE",
            ),
            mail(
                "m2",
                "2023-09-08 09:00:00",
                "b@y.com",
                "Lunch",
                "Lunch on Friday?",
            ),
            mail(
                "m3",
                "2023-09-08 09:00:00",
                "a@x.com",
                "Re: invoice",
                "Paid.",
            ),
            mail(
                "m4",
                "2023-09-20 09:00:00",
                "a@x.com",
                "Invoice",
                "not sent yet",
            ),
            mail("m5", "2023-09-01 09:00:00", "c@z.com", "News", "weekly"),
            mail("m6", "2023-09-02 09:00:00", "c@z.com", "News", "weekly"),
            mail("m7", "2023-09-03 09:00:00", "c@z.com", "News", "weekly"),
        ]
        .into_iter()
        .collect();
        let tables = [
            (
                "Account",
                json!({
                    "ann": {"username": "ann", "session_token": "tok-ann"},
                    "bob": {"username": "bob", "session_token": "tok-bob"},
                    "cy": {"username": "cy", "session_token": "tok-cy"},
                    "dee": {"username": "dee", "session_token": "tok-dee"},
                }),
            ),
            (
                "Email",
                json!({"ann": ann, "bob": {}, "cy": {"broken": {"email_id": "broken", "body": "x"}}}),
            ),
        ];
        testing::databases(tables)
    }

    /// A world at 2023-09-10 12:00:00 with `user` logged in.
    fn logged_in(user: &str) -> World {
        testing::world(&databases(), Some(user), None)
    }

    fn send(w: &mut World, to: Value) -> Result<Value, String> {
        call(
            w,
            "SendEmail",
            json!({"to": to, "subject": "Hi", "body": "Hello"}),
        )
    }

    #[test]
    fn send_email_checks_every_address_then_draws_an_id() {
        let mut w = logged_in("ann");
        let cases = [
            (
                json!(["ok@x.com", "nobody"]),
                "nobody is not a valid email address.",
            ),
            (
                json!(["a@b@c.com"]),
                "a@b@c.com is not a valid email address.",
            ),
            (
                json!(["a b@c.com"]),
                "a b@c.com is not a valid email address.",
            ),
            (json!("ab"), "a is not a valid email address."),
            (json!({"bad": 1}), "bad is not a valid email address."),
            (json!(5), "'int' object is not iterable"),
            (json!(null), "'NoneType' object is not iterable"),
            (
                json!(["ok@x.com", 1]),
                "expected string or bytes-like object, got 'int'",
            ),
        ];
        for (to, want) in cases {
            assert_eq!(send(&mut w, to.clone()).unwrap_err(), want, "{to}");
        }
        assert_eq!(
            call(
                &mut w,
                "SendEmail",
                json!({"to": ["a@x.com"], "subject": "Hi"})
            )
            .unwrap_err(),
            "SendEmail.call() missing 1 required positional argument: 'body'"
        );
        // Failures drew no ids; dots, hyphens, underscores, non-ASCII
        // letters and a trailing newline are accepted as Python's regex does.
        assert_eq!(
            send(
                &mut w,
                json!(["first.last-x@mail.example.com", "ü_1@straße.de\n"])
            )
            .unwrap(),
            json!({"email_id": FIRST_ID})
        );
        assert_eq!(
            send(&mut w, json!([])).unwrap(),
            json!({"email_id": SECOND_ID})
        );
        // Nothing is stored.
        assert_eq!(w.table("Email"), databases().get("Email"));
    }

    fn ids(result: Value) -> Vec<String> {
        result["emails"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["email_id"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn search_inbox_filters_sorts_and_hides_unreceived_mail() {
        let mut w = logged_in("ann");
        let mut search = |params: Value| call(&mut w, "SearchInbox", params).map(ids);
        assert_eq!(search(json!({"query": "invoice"})).unwrap(), ["m3", "m1"]);
        assert_eq!(
            search(json!({"query": "Pay Invoice", "match_type": "all"})).unwrap(),
            ["m1"]
        );
        assert_eq!(
            search(json!({"query": "lunch paid", "match_type": "any"})).unwrap(),
            ["m2", "m3"]
        );
        assert_eq!(search(json!({"sender": "a@x.com"})).unwrap(), ["m3", "m1"]);
        assert_eq!(
            search(json!({"start_date": "2023-09-02 09:00:00", "end_date": "2023-09-08 09:00:00"}))
                .unwrap(),
            ["m2", "m3", "m1", "m7", "m6"]
        );
        // Six received emails match; the oldest falls off.
        assert_eq!(
            search(json!({"end_date": "2023-09-30 00:00:00"})).unwrap(),
            ["m2", "m3", "m1", "m7", "m6"]
        );
        // An empty query still counts as a filter but matches everything;
        // a blank one has no keywords and so matches nothing with "any".
        assert_eq!(search(json!({"query": ""})).unwrap().len(), 5);
        assert_eq!(search(json!({"query": "  "})).unwrap().len(), 0);
        assert_eq!(
            search(json!({"query": "  ", "match_type": "all"}))
                .unwrap()
                .len(),
            5
        );
        assert_eq!(search(json!({"query": 0})).unwrap().len(), 5);
        let full = call(&mut w, "SearchInbox", json!({"query": "lunch"})).unwrap();
        assert_eq!(
            full["emails"][0],
            databases().get("Email").unwrap()["ann"]["m2"]
        );
    }

    #[test]
    fn search_inbox_errors_follow_the_reference_order() {
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
                json!({"query": "x", "match_type": "some"}),
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
                json!({"start_date": "2023-09-08 00:00:00", "end_date": "2023-09-07 00:00:00"}),
                "Start date must be earlier than end date.",
            ),
            (json!({"query": 5}), "'int' object has no attribute 'lower'"),
            (
                json!({"query": "x", "folder": "inbox"}),
                "SearchInbox.call() got an unexpected keyword argument 'folder'",
            ),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "SearchInbox", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
        // No mail at all: an empty answer before any argument is checked.
        let mut w = logged_in("bob");
        assert_eq!(
            call(&mut w, "SearchInbox", json!({})).unwrap(),
            json!({"emails": []})
        );
        let mut w = logged_in("dee");
        assert_eq!(
            call(&mut w, "SearchInbox", json!({"match_type": 3})).unwrap(),
            json!({"emails": []})
        );
        let mut w = logged_in("cy");
        assert_eq!(
            call(&mut w, "SearchInbox", json!({"query": "x"})).unwrap_err(),
            "'date'"
        );
    }

    #[test]
    fn comparators_follow_the_reference() {
        let t = &ExactText;
        let sent = |to: Value, subject: &str| {
            gold(
                "SendEmail",
                json!({"session_token": "s", "to": to, "subject": subject, "body": "b"}),
                json!({"email_id": "x"}),
            )
        };
        let g = sent(json!(["a@x.com", "b@x.com"]), "Hi");
        assert!(send_email_matches(
            CallRef::from(&sent(json!(["b@x.com", "a@x.com", "a@x.com"]), "Hi")),
            &g,
            t
        ));
        assert!(!send_email_matches(
            CallRef::from(&sent(json!(["a@x.com"]), "Hi")),
            &g,
            t
        ));
        assert!(!send_email_matches(
            CallRef::from(&sent(json!(["a@x.com", "b@x.com"]), "Hello")),
            &g,
            t
        ));
        let mut other_user = sent(json!(["a@x.com", "b@x.com"]), "Hi");
        other_user.request.parameters["session_token"] = json!("t");
        assert!(!send_email_matches(CallRef::from(&other_user), &g, t));
        let mut no_body = sent(json!(["a@x.com", "b@x.com"]), "Hi");
        no_body.request.parameters.remove("body");
        assert!(!send_email_matches(CallRef::from(&no_body), &g, t));

        let found = |ids: &[&str]| {
            let emails: Vec<Value> = ids.iter().map(|i| json!({"email_id": i})).collect();
            gold(
                "SearchInbox",
                json!({"session_token": "s", "query": "q"}),
                json!({"emails": emails}),
            )
        };
        assert!(search_inbox_matches(
            CallRef::from(&found(&["1", "2"])),
            &found(&["2"]),
            t
        ));
        assert!(!search_inbox_matches(
            CallRef::from(&found(&["1"])),
            &found(&["2"]),
            t
        ));
        let mut failed = found(&[]);
        failed.exception = Some("boom".into());
        assert!(!search_inbox_matches(
            CallRef::from(&failed),
            &found(&[]),
            t
        ));
    }

    #[test]
    fn specs_describe_the_reference_signature() {
        assert!(TOOLS.iter().all(|t| t.spec.requires_auth));
        assert!(SEND_EMAIL.spec.is_action && !SEARCH_INBOX.spec.is_action);
        assert_eq!(SEARCH_INBOX.spec.database, Some("Email"));
        assert!(SEARCH_INBOX.spec.parameters.iter().all(|p| !p.required));
        assert!(SEND_EMAIL.spec.parameters.iter().all(|p| p.required));
    }
}
