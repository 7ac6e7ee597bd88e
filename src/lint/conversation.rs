//! A ToolTalk conversation as the rules read it: the fields of
//! [`model::Conversation`] they use, borrowed from the parsed tree rather
//! than copied out of it.
//!
//! [`Conversation::read`] reads the tree in place when it has the plain
//! shape (objects where the model has structs, each field of the type the
//! model wants), and declines anything else; the model's own reader then
//! decides ([`ModelReading`], [`Conversation::of`]). A tree it accepts is
//! one the model's reader accepts too, read the same way (tested below on
//! both sides).

use crate::dialogue::{self as model, Role};
use crate::json::tree::{Json, Object};

/// What the rules see of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation<'a> {
    pub suites_used: Vec<&'a str>,
    pub apis_used: Vec<&'a str>,
    /// The user's `session_token`: the conversation starts logged in.
    pub user_session_token: Option<&'a str>,
    pub metadata: Metadata<'a>,
    pub turns: Vec<Turn<'a>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Metadata<'a> {
    pub location: Option<&'a str>,
    pub timestamp: &'a str,
    pub session_token: Option<&'a str>,
    pub username: Option<&'a str>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Turn<'a> {
    pub index: Option<u64>,
    pub role: Role,
    pub text: &'a str,
    pub calls: Vec<Call<'a>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Call<'a> {
    pub api_name: &'a str,
    pub parameters: &'a Object<'a>,
    /// None when the call recorded no result (null or left out).
    pub response: Option<&'a Json<'a>>,
    pub exception: Option<&'a str>,
}

/// A conversation only the model's reader took (an unusual spelling), with
/// each gold call's arguments and result as trees, since the rules read
/// trees: copies of the model's values, made once for the file (few files
/// take this path).
#[derive(Debug, Clone)]
pub struct ModelReading {
    pub conversation: model::Conversation,
    /// Each gold call's parameters and response, in dialogue order.
    calls: Vec<(Object<'static>, Json<'static>)>,
}

impl ModelReading {
    pub fn new(conversation: model::Conversation) -> ModelReading {
        let calls = conversation
            .gold_calls()
            .map(|(_, _, call)| {
                (
                    Object::from(&call.request.parameters).into_owned(),
                    Json::from(&call.response).into_owned(),
                )
            })
            .collect();
        ModelReading {
            conversation,
            calls,
        }
    }
}

impl<'a> Conversation<'a> {
    /// The conversation from the typed model.
    pub fn of(reading: &'a ModelReading) -> Conversation<'a> {
        let conv = &reading.conversation;
        let mut trees = reading.calls.iter();
        let meta = &conv.metadata;
        Conversation {
            suites_used: conv.suites_used.iter().map(String::as_str).collect(),
            apis_used: conv.apis_used.iter().map(String::as_str).collect(),
            user_session_token: conv.user.session_token.as_deref(),
            metadata: Metadata {
                location: meta.location.as_deref(),
                timestamp: &meta.timestamp,
                session_token: meta.session_token.as_deref(),
                username: meta.username.as_deref(),
            },
            turns: conv
                .conversation
                .iter()
                .map(|turn| Turn {
                    index: turn.index,
                    role: turn.role,
                    text: &turn.text,
                    calls: turn
                        .calls()
                        .iter()
                        .zip(&mut trees)
                        .map(|(call, (parameters, response))| Call {
                            api_name: &call.request.api_name,
                            parameters,
                            response: Some(response).filter(|r| !r.is_null()),
                            exception: call.exception.as_deref(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// The conversation read in place from a parsed file, when the tree has
    /// the plain shape; None sends the caller to the model's reader.
    pub fn read(value: &'a Json<'a>) -> Option<Conversation<'a>> {
        let mut name = None;
        let mut conversation_id = None;
        let mut suites_used = Vec::new();
        let mut apis_used = Vec::new();
        let mut user = None;
        let mut metadata = None;
        let mut turns = None;
        for (key, value) in value.as_object()? {
            match key {
                "name" => name = Some(value.as_str()?),
                "conversation_id" => conversation_id = Some(value.as_str()?),
                "suites_used" => suites_used = strings(value)?,
                "apis_used" => apis_used = strings(value)?,
                "scenario" => {
                    optional_str(value)?;
                }
                "user" => user = Some(read_user(value)?),
                "metadata" => metadata = Some(read_metadata(value)?),
                "conversation" => turns = Some(each(value, read_turn)?),
                _ => {}
            }
        }
        name?;
        conversation_id?;
        Some(Conversation {
            suites_used,
            apis_used,
            user_session_token: user?,
            metadata: metadata?,
            turns: turns?,
        })
    }
}

/// A list of strings (a field the model defaults when it is left out).
fn strings<'a>(value: &'a Json<'a>) -> Option<Vec<&'a str>> {
    each(value, Json::as_str)
}

/// Each element of a list read by `read`, or None when the value is no
/// list or an element does not read. (Collecting into an `Option<Vec>`
/// would grow the vector step by step; the list's length is known.)
fn each<'a, T>(value: &'a Json<'a>, read: impl Fn(&'a Json<'a>) -> Option<T>) -> Option<Vec<T>> {
    let items = value.as_array()?;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(read(item)?);
    }
    Some(out)
}

/// An optional string: null or a string (Some(None) for null).
fn optional_str<'a>(value: &'a Json<'_>) -> Option<Option<&'a str>> {
    match value {
        Json::Null => Some(None),
        Json::String(s) => Some(Some(s)),
        _ => None,
    }
}

/// The user's fields are all optional strings; the rules need only its
/// session token.
fn read_user<'a>(value: &'a Json<'_>) -> Option<Option<&'a str>> {
    let mut session_token = None;
    for (key, value) in value.as_object()? {
        match key {
            "session_token" => session_token = optional_str(value)?,
            "username" | "email" | "phone" | "name" | "password" | "verification_code" => {
                optional_str(value)?;
            }
            _ => {}
        }
    }
    Some(session_token)
}

fn read_metadata<'a>(value: &'a Json<'_>) -> Option<Metadata<'a>> {
    let (mut location, mut timestamp, mut session_token, mut username) = (None, None, None, None);
    for (key, value) in value.as_object()? {
        match key {
            "location" => location = optional_str(value)?,
            "timestamp" => timestamp = Some(value.as_str()?),
            "session_token" => session_token = optional_str(value)?,
            "username" => username = optional_str(value)?,
            _ => {}
        }
    }
    Some(Metadata {
        location,
        timestamp: timestamp?,
        session_token,
        username,
    })
}

fn read_turn<'a>(value: &'a Json<'a>) -> Option<Turn<'a>> {
    let (mut index, mut role, mut text, mut calls) = (None, None, None, Vec::new());
    for (key, value) in value.as_object()? {
        match key {
            "index" => {
                index = match value {
                    Json::Null => None,
                    other => Some(other.as_u64()?),
                }
            }
            "role" => {
                role = Some(match value.as_str()? {
                    "user" => Role::User,
                    "assistant" => Role::Assistant,
                    _ => return None,
                })
            }
            "text" => text = Some(value.as_str()?),
            "apis" => {
                calls = match value {
                    Json::Null => Vec::new(),
                    other => each(other, read_call)?,
                }
            }
            _ => {}
        }
    }
    Some(Turn {
        index,
        role: role?,
        text: text?,
        calls,
    })
}

fn read_call<'a>(value: &'a Json<'a>) -> Option<Call<'a>> {
    let (mut request, mut response, mut exception) = (None, None, None);
    for (key, value) in value.as_object()? {
        match key {
            "request" => request = Some(read_request(value)?),
            "response" => response = Some(value).filter(|r| !r.is_null()),
            "exception" => exception = optional_str(value)?,
            _ => {}
        }
    }
    let (api_name, parameters) = request?;
    Some(Call {
        api_name,
        parameters,
        response,
        exception,
    })
}

/// A request's tool and arguments. Arguments that are null or left out
/// are the model reader's to judge.
fn read_request<'a>(value: &'a Json<'a>) -> Option<(&'a str, &'a Object<'a>)> {
    let (mut api_name, mut parameters) = (None, None);
    for (key, value) in value.as_object()? {
        match key {
            "api_name" => api_name = Some(value.as_str()?),
            "parameters" => parameters = Some(value.as_object()?),
            _ => {}
        }
    }
    Some((api_name?, parameters?))
}

#[cfg(test)]
pub(crate) mod tests {
    use serde::Deserialize;
    use serde_json::{json, Value};

    use super::*;

    /// The in-place reading, checked against the model's: whenever it
    /// accepts a tree, the model accepts it too and reads the same.
    fn agrees(value: &Value) -> bool {
        let typed = model::Conversation::deserialize(value).ok();
        let tree = Json::from(value);
        let read = Conversation::read(&tree);
        if let Some(read) = &read {
            let typed = typed.expect("the model accepts what the reader accepts");
            let reading = ModelReading::new(typed);
            assert_eq!(*read, Conversation::of(&reading), "{value:#}");
        }
        read.is_some()
    }

    /// `value` with the member or element at `pointer` set (added if new).
    pub(crate) fn set(value: &mut Value, pointer: &str, replacement: Value) {
        let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
        match value.pointer_mut(parent).expect("the parent exists") {
            Value::Object(members) => {
                members.insert(key.to_owned(), replacement);
            }
            Value::Array(items) => items[key.parse::<usize>().expect("an index")] = replacement,
            other => panic!("{pointer}: {other} holds nothing"),
        }
    }

    fn plain() -> Value {
        json!({
            "name": "n", "conversation_id": "id", "suites_used": ["Alarm"], "apis_used": ["AddAlarm"],
            "scenario": null, "extra": [1, 2],
            "user": {"username": "u", "session_token": "t", "other": 3},
            "metadata": {"location": "Paris", "timestamp": "2023-09-11 09:00:00", "username": null},
            "conversation": [
                {"index": 0, "role": "user", "text": "hi"},
                {"role": "assistant", "text": "ok", "apis": [
                    {"request": {"api_name": "AddAlarm", "parameters": {"time": "09:00:00"}},
                     "response": {"alarm_id": "a"}, "exception": null},
                    {"request": {"api_name": "AddAlarm", "parameters": {}}, "exception": "boom"}
                ]},
                {"index": null, "role": "user", "text": "bye", "apis": null}
            ]
        })
    }

    #[test]
    fn the_plain_shape_is_read_in_place_as_the_model_reads_it() {
        assert!(agrees(&plain()));
        let mut minimal = plain();
        let object = minimal.as_object_mut().unwrap();
        for optional in ["suites_used", "apis_used", "scenario", "extra"] {
            object.remove(optional);
        }
        assert!(agrees(&minimal));
    }

    #[test]
    fn other_shapes_are_left_to_the_model() {
        let changes: Vec<(&str, Value)> = vec![
            ("/name", json!(1)),
            ("/suites_used", json!(null)),
            ("/apis_used", json!(["a", 1])),
            ("/scenario", json!(2)),
            ("/user", json!(["u"])),
            ("/user/email", json!(5)),
            ("/metadata/timestamp", json!(null)),
            ("/metadata/location", json!(["Paris"])),
            ("/conversation", json!({})),
            ("/conversation/0/index", json!(-1)),
            ("/conversation/0/index", json!(1.5)),
            ("/conversation/0/role", json!("User")),
            ("/conversation/0/role", json!({"user": null})),
            ("/conversation/0/text", json!(null)),
            ("/conversation/1/apis", json!({})),
            (
                "/conversation/1/apis/0",
                json!([{"api_name": "AddAlarm", "parameters": {}}]),
            ),
            ("/conversation/1/apis/0/request/parameters", json!(null)),
            ("/conversation/1/apis/0/request/parameters", json!([])),
            ("/conversation/1/apis/0/request/api_name", json!(null)),
            ("/conversation/1/apis/0/exception", json!(false)),
        ];
        for (pointer, replacement) in changes {
            let mut value = plain();
            set(&mut value, pointer, replacement);
            assert!(!agrees(&value), "{pointer}");
        }
        for required in [
            "/name",
            "/conversation_id",
            "/user",
            "/metadata",
            "/conversation",
            "/metadata/timestamp",
            "/conversation/0/role",
            "/conversation/0/text",
            "/conversation/1/apis/0/request",
            "/conversation/1/apis/0/request/api_name",
            "/conversation/1/apis/0/request/parameters",
        ] {
            let mut value = plain();
            let (parent, key) = required.rsplit_once('/').unwrap();
            let parent = if parent.is_empty() {
                &mut value
            } else {
                value.pointer_mut(parent).unwrap()
            };
            parent.as_object_mut().unwrap().remove(key);
            assert!(!agrees(&value), "{required} left out");
        }
    }

    #[test]
    fn every_conversation_in_the_repository_is_read_in_place() {
        let mut read = 0;
        for dir in ["conversations", "tests"] {
            let Ok(files) = crate::formats::discover(&[dir.into()], &["json"]) else {
                continue;
            };
            for path in files {
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let Ok(value) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                if agrees(&value) {
                    read += 1;
                }
            }
        }
        assert!(read > 0);
    }
}
