//! What the plugins' tests share: databases built from JSON tables, a
//! world for one conversation at a fixed time, calls that split the
//! answer from the exception, and gold calls for the comparators.

use serde_json::Value;

use crate::dialogue::{Conversation, GoldCall, Metadata, Request, User};
use crate::sim::Databases;
use crate::suites::tooltalk::World;

/// Databases holding `tables`, each a JSON object.
pub(crate) fn databases<'a>(tables: impl IntoIterator<Item = (&'a str, Value)>) -> Databases {
    Databases::from_tables(
        tables
            .into_iter()
            .map(|(n, t)| (n.to_string(), t.as_object().unwrap().clone())),
    )
}

/// A world at 2023-09-10 12:00:00, logged in as `user` (with the token
/// `tok-<user>`) when given, with `code` seeded as the user's verification
/// code.
pub(crate) fn world(databases: &Databases, user: Option<&str>, code: Option<&str>) -> World {
    let conversation = Conversation {
        name: "t".into(),
        conversation_id: "t".into(),
        suites_used: vec![],
        apis_used: vec![],
        scenario: None,
        user: User {
            username: user.map(str::to_string),
            session_token: user.map(|u| format!("tok-{u}")),
            verification_code: code.map(str::to_string),
            ..User::default()
        },
        metadata: Metadata {
            timestamp: "2023-09-10 12:00:00".into(),
            ..Metadata::default()
        },
        conversation: vec![],
        errata: vec![],
    };
    World::for_conversation(databases, &conversation).unwrap()
}

/// The call's response, or its exception.
pub(crate) fn call(w: &mut World, api: &str, params: Value) -> Result<Value, String> {
    let e = w.execute(api, params.as_object().unwrap().clone());
    match e.exception {
        Some(x) => Err(x),
        None => Ok(e.response.into_value()),
    }
}

/// A gold call that answered `response`.
pub(crate) fn gold(api: &str, params: Value, response: Value) -> GoldCall {
    GoldCall {
        request: Request {
            api_name: api.into(),
            parameters: params.as_object().unwrap().clone(),
        },
        response,
        exception: None,
        place: None,
    }
}
