//! Verifying a conversation file in one reading.
//!
//! The plain way to verify a file is to build the whole conversation, then
//! run its gold calls and compare. Most of what that builds is thrown away:
//! turn texts are never looked at, and a recorded response is only compared
//! with the simulator's (equal nearly always). Here the file is read once
//! and each gold call is run as soon as its request has been read, so that
//! its recorded response can be compared token by token as the parser meets
//! it ([`crate::json_compare`]), with nothing built unless it differs.
//!
//! This needs the order every writer of these files uses: `user` and
//! `metadata` before `conversation` (the world is set up from them), and in
//! each call `request` before `response`. A file in another order, or one
//! this reader finds any fault with, is left to the caller, who reads it
//! with the full model: its errors are the ones every command gives, and
//! its verification is the reference this one is tested against.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::{unified_diff, Difference, Outcome};
use crate::json_compare::{Compare, Compared};
use crate::model::{Metadata, Request, Role, User};
use crate::sim::world::{Databases, World};

/// Verify the conversation file `text` (named `file` in differences):
/// `Ok(Ok((gold calls, differences)))`, `Ok(Err(why))` when its world
/// cannot be set up, or `Err` when this reader leaves the file to the full
/// model (a fault in it, or an order it does not follow).
pub fn verify_text(
    file: &str,
    text: &str,
    databases: &Databases,
) -> serde_json::Result<Result<(usize, Vec<Difference>), String>> {
    let mut replayer = Replayer {
        databases,
        file,
        world: None,
        calls: 0,
        differences: Vec::new(),
    };
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer.deserialize_map(FileVisitor(&mut replayer))?;
    deserializer.end()?;
    Ok(match replayer.world {
        Some(Err(why)) => Err(why),
        _ => Ok((replayer.calls, replayer.differences)),
    })
}

/// The replay under way while the file is read.
struct Replayer<'a> {
    databases: &'a Databases,
    file: &'a str,
    /// Set up when `conversation` is reached.
    world: Option<Result<World, String>>,
    calls: usize,
    differences: Vec<Difference>,
}

impl Replayer<'_> {
    /// Record one gold call: what the world did against what was recorded.
    fn record(
        &mut self,
        (turn, call): (usize, usize),
        request: &Request,
        (response, exception): (Value, Option<String>),
        recorded: Compared,
        recorded_exception: Option<String>,
    ) {
        self.calls += 1;
        if recorded_exception == exception && recorded.equals(&response) {
            return;
        }
        let recorded = recorded.into_value(&response);
        self.differences.push(Difference {
            file: self.file.to_string(),
            turn,
            call,
            api_name: request.api_name.clone(),
            diff: unified_diff(
                &Outcome {
                    response: &recorded,
                    exception: &recorded_exception,
                },
                &Outcome {
                    response: &response,
                    exception: &exception,
                },
            ),
        });
    }
}

fn leave_to_full_model<E: de::Error>(why: &str) -> E {
    E::custom(why)
}

/// Marks a field as read, refusing a repeat (the full model does too).
fn first_time<E: de::Error>(seen: &mut bool, name: &'static str) -> Result<(), E> {
    if std::mem::replace(seen, true) {
        return Err(E::duplicate_field(name));
    }
    Ok(())
}

/// A JSON string that is checked and not kept.
struct AnyString;

impl<'de> Deserialize<'de> for AnyString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Checked;
        impl Visitor<'_> for Checked {
            type Value = AnyString;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<AnyString, E> {
                Ok(AnyString)
            }
        }
        deserializer.deserialize_str(Checked)
    }
}

/// An object's key, named when it is one of `names`, borrowed otherwise
/// only long enough to be skipped.
struct FieldName(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for FieldName {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for FieldName {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|name| *name == key))
    }
}

const FILE_FIELDS: &[&str] = &[
    "name",
    "conversation_id",
    "suites_used",
    "apis_used",
    "scenario",
    "user",
    "metadata",
    "conversation",
];

struct FileVisitor<'r, 'a>(&'r mut Replayer<'a>);

impl<'de> Visitor<'de> for FileVisitor<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a conversation")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = [false; FILE_FIELDS.len()];
        let mut user: Option<User> = None;
        let mut metadata: Option<Metadata> = None;
        while let Some(field) = map.next_key_seed(FieldName(FILE_FIELDS))? {
            let Some(field) = field else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            first_time(&mut seen[field], FILE_FIELDS[field])?;
            match FILE_FIELDS[field] {
                "name" | "conversation_id" => {
                    map.next_value::<AnyString>()?;
                }
                "suites_used" | "apis_used" => {
                    map.next_value::<Vec<AnyString>>()?;
                }
                "scenario" => {
                    map.next_value::<Option<AnyString>>()?;
                }
                "user" => user = Some(map.next_value()?),
                "metadata" => metadata = Some(map.next_value()?),
                _ => {
                    let (Some(user), Some(metadata)) = (&user, &metadata) else {
                        return Err(leave_to_full_model("conversation before user and metadata"));
                    };
                    self.0.world = Some(World::for_user(self.0.databases, metadata, user));
                    map.next_value_seed(Turns(self.0))?;
                }
            }
        }
        for (field, name) in FILE_FIELDS.iter().enumerate() {
            let required = !matches!(*name, "suites_used" | "apis_used" | "scenario");
            if required && !seen[field] {
                return Err(de::Error::missing_field(name));
            }
        }
        Ok(())
    }
}

/// The `conversation` array; calls are run when the world is set up.
struct Turns<'r, 'a>(&'r mut Replayer<'a>);

impl<'de> DeserializeSeed<'de> for Turns<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Turns<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a sequence of turns")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut turn = 0;
        while seq
            .next_element_seed(TurnSeed {
                replayer: self.0,
                turn,
            })?
            .is_some()
        {
            turn += 1;
        }
        Ok(())
    }
}

const TURN_FIELDS: &[&str] = &["index", "role", "text", "apis"];

struct TurnSeed<'r, 'a> {
    replayer: &'r mut Replayer<'a>,
    turn: usize,
}

impl<'de> DeserializeSeed<'de> for TurnSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TurnSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a turn")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = [false; TURN_FIELDS.len()];
        while let Some(field) = map.next_key_seed(FieldName(TURN_FIELDS))? {
            let Some(field) = field else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            first_time(&mut seen[field], TURN_FIELDS[field])?;
            match TURN_FIELDS[field] {
                "index" => {
                    map.next_value::<Option<u64>>()?;
                }
                "role" => {
                    map.next_value::<Role>()?;
                }
                "text" => {
                    map.next_value::<AnyString>()?;
                }
                _ => map.next_value_seed(Apis {
                    replayer: self.replayer,
                    turn: self.turn,
                })?,
            }
        }
        for (field, name) in [(1, "role"), (2, "text")] {
            if !seen[field] {
                return Err(de::Error::missing_field(name));
            }
        }
        Ok(())
    }
}

/// A turn's `apis`: absent, `null` or a list of calls.
struct Apis<'r, 'a> {
    replayer: &'r mut Replayer<'a>,
    turn: usize,
}

impl<'de> DeserializeSeed<'de> for Apis<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for Apis<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a sequence of calls or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut call = 0;
        while seq
            .next_element_seed(CallSeed {
                replayer: self.replayer,
                at: (self.turn, call),
            })?
            .is_some()
        {
            call += 1;
        }
        Ok(())
    }
}

const CALL_FIELDS: &[&str] = &["request", "response", "exception"];

/// One gold call: run when its request has been read, its response then
/// read against the result.
struct CallSeed<'r, 'a> {
    replayer: &'r mut Replayer<'a>,
    at: (usize, usize),
}

impl<'de> DeserializeSeed<'de> for CallSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for CallSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a gold call")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = [false; CALL_FIELDS.len()];
        let mut executed: Option<(Request, (Value, Option<String>))> = None;
        let mut recorded: Option<Compared> = None;
        let mut exception: Option<String> = None;
        while let Some(field) = map.next_key_seed(FieldName(CALL_FIELDS))? {
            let Some(field) = field else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            first_time(&mut seen[field], CALL_FIELDS[field])?;
            match CALL_FIELDS[field] {
                "request" => {
                    let request: Request = map.next_value()?;
                    if let Some(Ok(world)) = &mut self.replayer.world {
                        let outcome = world.outcome(&request.api_name, &request.parameters);
                        executed = Some((request, outcome));
                    }
                }
                "response" => match &executed {
                    Some((_, (response, _))) => {
                        recorded = Some(map.next_value_seed(Compare(response))?);
                    }
                    None if matches!(self.replayer.world, Some(Ok(_))) => {
                        return Err(leave_to_full_model("response before request"));
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                },
                _ => exception = map.next_value()?,
            }
        }
        if !seen[0] {
            return Err(de::Error::missing_field("request"));
        }
        if let Some((request, outcome)) = executed {
            // No response recorded reads as null.
            let recorded = recorded.unwrap_or_else(|| {
                if outcome.0.is_null() {
                    Compared::Same
                } else {
                    Compared::Parsed(Value::Null)
                }
            });
            self.replayer
                .record(self.at, &request, outcome, recorded, exception);
        }
        Ok(())
    }
}
