//! Completing ToolTalk's databases from recordings (`fill --seed`).
//!
//! A maintainer who writes "you have an email from Dana about the invoice"
//! into a conversation records it in the query's result; the database must
//! hold that email for the recording to reproduce. Seeding walks every
//! conversation's gold calls in the world as it stands at each call, and for
//! each listing query (events, emails, messages, reminders, alarms) adds the
//! listed records the world lacks to the logged-in user's entry of the
//! tool's database. Existing records are never changed or removed: a record
//! whose id is already there is left alone even when its fields differ
//! (verify will show the difference).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::formats::LoadedConversation;
use crate::sim::table::Record;
use crate::sim::Databases;
use crate::suite::{Seeded, SeededRecord};

use super::{tool, World};
use crate::{Error, Result};

/// The listing queries whose results name database records: tool, the key
/// of the list in the result, the key of a record's id.
const LISTINGS: [(&str, &str, &str); 5] = [
    ("QueryCalendar", "events", "event_id"),
    ("SearchInbox", "emails", "email_id"),
    ("SearchMessages", "messages", "message_id"),
    ("GetReminders", "reminders", "reminder_id"),
    ("FindAlarms", "alarms", "alarm_id"),
];

/// Add what the recordings list and the databases lack. Conversations are
/// processed in order, so a record seeded for one is there for the next.
pub fn seed_databases(conversations: &[LoadedConversation], initial: &Databases) -> Result<Seeded> {
    let mut databases = initial.clone();
    let mut records = Vec::new();
    for loaded in conversations {
        // Replaying again after an addition lets later calls of the same
        // conversation see the record (a listing, then a delete of it).
        loop {
            let added = seed_one(loaded, &mut databases)?;
            if added.is_empty() {
                break;
            }
            records.extend(added);
        }
    }
    Ok(Seeded { databases, records })
}

/// One replay of `loaded`; stops at the first call that needs records and
/// adds them. Returns what it added (empty: nothing is missing).
fn seed_one(loaded: &LoadedConversation, databases: &mut Databases) -> Result<Vec<SeededRecord>> {
    let path = &loaded.path;
    let mut world = World::for_conversation(databases, &loaded.conversation)
        .map_err(|m| Error::input(path, m))?;
    for (turn, call, gold) in loaded.conversation.gold_calls() {
        let api_name = gold.request.api_name.as_str();
        if let Some(listed) = listed_records(api_name, gold) {
            // A user registered under a username that is not text has no
            // records a database file could hold.
            let user = world
                .logged_in_user()
                .filter(|user| !crate::sim::pyargs::is_non_text_key(user));
            if let Some(user) = user {
                let database = tool(api_name).and_then(|t| t.database).unwrap_or_default();
                let present: BTreeSet<&str> = world
                    .table(database)
                    .and_then(|t| t.get(&user))
                    .and_then(Record::as_object)
                    .map(|items| items.keys().collect())
                    .unwrap_or_default();
                let missing: Vec<(&str, &Map<String, Value>)> = listed
                    .into_iter()
                    .filter(|(id, _)| !present.contains(id))
                    .collect();
                if !missing.is_empty() {
                    let entry = databases
                        .table_mut(database)
                        .get_or_insert_with(&user, Record::new);
                    let Some(entry) = entry.as_object_mut() else {
                        return Err(Error::input(
                            path,
                            format!(
                                "turn {turn} call {call}: {database}[{user:?}] is not an object, \
                                 cannot seed records into it"
                            ),
                        ));
                    };
                    let mut added = Vec::new();
                    for (id, record) in missing {
                        if entry.contains_key(id) {
                            continue; // there already, just hidden from the world
                        }
                        entry.insert(id, Value::Object(record.clone()));
                        added.push(SeededRecord {
                            database: database.to_string(),
                            user: user.clone(),
                            id: id.to_string(),
                            file: path.display().to_string(),
                            turn,
                            call,
                            api_name: api_name.to_string(),
                            line: None,
                        });
                    }
                    if !added.is_empty() {
                        return Ok(added);
                    }
                }
            }
        }
        world.execute(api_name, gold.request.parameters.clone());
    }
    Ok(Vec::new())
}

/// The records a recorded listing shows, by id: nothing for other tools,
/// failed calls, or records without a string id.
fn listed_records<'a>(
    api_name: &str,
    gold: &'a crate::dialogue::GoldCall,
) -> Option<Vec<(&'a str, &'a Map<String, Value>)>> {
    let (_, list_key, id_key) = LISTINGS.iter().find(|(name, _, _)| *name == api_name)?;
    if gold.exception.is_some() {
        return None;
    }
    let listed = gold.response.get(*list_key)?.as_array()?;
    Some(
        listed
            .iter()
            .filter_map(Value::as_object)
            .filter_map(|r| Some((r.get(*id_key)?.as_str()?, r)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

    use super::*;

    fn email(id: &str, date: &str) -> Value {
        json!({"email_id": id, "date": date, "sender": "dana@example.com",
               "subject": "Invoice", "body": "the invoice"})
    }

    #[test]
    fn seeding_adds_items_at_the_end_and_leaves_the_initial_databases_alone() {
        let initial = Databases::from_tables(
            [
                (
                    "Account",
                    json!({"ann": {"username": "ann", "session_token": null}}),
                ),
                (
                    "Email",
                    json!({"ann": {"old": email("old", "2023-08-01 09:00:00")}}),
                ),
            ]
            .map(|(name, t)| (name.to_string(), t.as_object().unwrap().clone())),
        );
        let before = initial.get("Email").unwrap().to_map();
        let listed = json!({"emails": [email("new", "2023-09-10 08:00:00"), email("old", "2023-08-01 09:00:00")]});
        let value = json!({
            "name": "inbox", "conversation_id": "c", "suites_used": [], "apis_used": [],
            "user": {"username": "ann", "session_token": "tok"},
            "metadata": {"timestamp": "2023-09-10 12:00:00"},
            "conversation": [{"index": 0, "role": "assistant", "text": "", "apis": [
                {"request": {"api_name": "SearchInbox",
                             "parameters": {"session_token": "tok", "query": "invoice"}},
                 "response": listed, "exception": null}]}]
        });
        let loaded = LoadedConversation {
            path: PathBuf::from("inbox.json"),
            text: value.to_string(),
            conversation: serde_json::from_value(value).unwrap(),
            unrecorded: Vec::new(),
        };
        let seeded = seed_databases(&[loaded], &initial).unwrap();
        let ids: Vec<&str> = seeded.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["new"]);
        let inbox = &seeded.databases.get("Email").unwrap()["ann"];
        assert_eq!(
            inbox.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["old", "new"]
        );
        assert_eq!(inbox["new"], email("new", "2023-09-10 08:00:00"));
        // The existing item is shared, not copied; the initial databases
        // did not change.
        let old =
            |d: &Databases| d.get("Email").unwrap()["ann"].get("old").unwrap() as *const Value;
        assert!(std::ptr::eq(old(&initial), old(&seeded.databases)));
        assert_eq!(initial.get("Email").unwrap().to_map(), before);
    }
}
