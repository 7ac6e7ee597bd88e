//! Verifying a conversation file in one reading.
//!
//! The plain way to verify a file is to build the whole conversation, then
//! run its gold calls and compare. Most of what that builds is thrown away:
//! turn texts are never looked at, and a recorded response is only compared
//! with the simulator's (equal nearly always). Here the file is read once
//! and each gold call is run as soon as its request has been read, so that
//! its recorded response can be compared token by token as the parser meets
//! it ([`crate::json::compare`]), with nothing built unless it differs.
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
use crate::dialogue::{Metadata, Request, Role, User};
use crate::json::compare::{Compare, Compared};
use crate::sim::Databases;
use crate::suites::tooltalk::World;

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

/// Reads an object's keys against the fields a model has, as serde's
/// derive does: unknown keys are skipped, a repeated field is refused, and
/// [`Fields::require`] names one that never came.
struct Fields<F: 'static> {
    known: &'static [(&'static str, F)],
    /// Bit `i`: `known[i]` has been read.
    seen: u32,
}

impl<F: Copy + PartialEq> Fields<F> {
    fn new(known: &'static [(&'static str, F)]) -> Self {
        Fields { known, seen: 0 }
    }

    /// The next known field (its value still to be read), or `None` at
    /// the end of the object.
    fn next<'de, A: MapAccess<'de>>(&mut self, map: &mut A) -> Result<Option<F>, A::Error> {
        while let Some(field) = map.next_key_seed(FieldName(self.known))? {
            let Some(i) = field else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if self.seen & (1 << i) != 0 {
                return Err(de::Error::duplicate_field(self.known[i].0));
            }
            self.seen |= 1 << i;
            return Ok(Some(self.known[i].1));
        }
        Ok(None)
    }

    fn require<E: de::Error>(&self, required: &[F]) -> Result<(), E> {
        for (i, (name, field)) in self.known.iter().enumerate() {
            if required.contains(field) && self.seen & (1 << i) == 0 {
                return Err(E::missing_field(name));
            }
        }
        Ok(())
    }
}

/// An object's key: its position among the known fields, or `None` for
/// another key (borrowed only long enough to be compared).
struct FieldName<F: 'static>(&'static [(&'static str, F)]);

impl<'de, F> DeserializeSeed<'de> for FieldName<F> {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<F> Visitor<'_> for FieldName<F> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|(name, _)| *name == key))
    }
}

#[derive(Clone, Copy, PartialEq)]
enum FileField {
    Name,
    ConversationId,
    SuitesUsed,
    ApisUsed,
    Scenario,
    User,
    Metadata,
    Conversation,
}

const FILE_FIELDS: &[(&str, FileField)] = &[
    ("name", FileField::Name),
    ("conversation_id", FileField::ConversationId),
    ("suites_used", FileField::SuitesUsed),
    ("apis_used", FileField::ApisUsed),
    ("scenario", FileField::Scenario),
    ("user", FileField::User),
    ("metadata", FileField::Metadata),
    ("conversation", FileField::Conversation),
];

struct FileVisitor<'r, 'a>(&'r mut Replayer<'a>);

impl<'de> Visitor<'de> for FileVisitor<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a conversation")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut fields = Fields::new(FILE_FIELDS);
        let mut user: Option<User> = None;
        let mut metadata: Option<Metadata> = None;
        while let Some(field) = fields.next(&mut map)? {
            match field {
                FileField::Name | FileField::ConversationId => {
                    map.next_value::<AnyString>()?;
                }
                FileField::SuitesUsed | FileField::ApisUsed => {
                    map.next_value::<Vec<AnyString>>()?;
                }
                FileField::Scenario => {
                    map.next_value::<Option<AnyString>>()?;
                }
                FileField::User => user = Some(map.next_value()?),
                FileField::Metadata => metadata = Some(map.next_value()?),
                FileField::Conversation => {
                    let (Some(user), Some(metadata)) = (&user, &metadata) else {
                        return Err(leave_to_full_model("conversation before user and metadata"));
                    };
                    self.0.world = Some(World::for_user(self.0.databases, metadata, user));
                    map.next_value_seed(Turns(self.0))?;
                }
            }
        }
        fields.require(&[
            FileField::Name,
            FileField::ConversationId,
            FileField::User,
            FileField::Metadata,
            FileField::Conversation,
        ])
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

#[derive(Clone, Copy, PartialEq)]
enum TurnField {
    Index,
    Role,
    Text,
    Apis,
}

const TURN_FIELDS: &[(&str, TurnField)] = &[
    ("index", TurnField::Index),
    ("role", TurnField::Role),
    ("text", TurnField::Text),
    ("apis", TurnField::Apis),
];

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
        let mut fields = Fields::new(TURN_FIELDS);
        while let Some(field) = fields.next(&mut map)? {
            match field {
                TurnField::Index => {
                    map.next_value::<Option<u64>>()?;
                }
                TurnField::Role => {
                    map.next_value::<Role>()?;
                }
                TurnField::Text => {
                    map.next_value::<AnyString>()?;
                }
                TurnField::Apis => map.next_value_seed(Apis {
                    replayer: self.replayer,
                    turn: self.turn,
                })?,
            }
        }
        fields.require(&[TurnField::Role, TurnField::Text])
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

#[derive(Clone, Copy, PartialEq)]
enum CallField {
    Request,
    Response,
    Exception,
}

const CALL_FIELDS: &[(&str, CallField)] = &[
    ("request", CallField::Request),
    ("response", CallField::Response),
    ("exception", CallField::Exception),
];

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
        let mut fields = Fields::new(CALL_FIELDS);
        let mut executed: Option<(Request, (Value, Option<String>))> = None;
        let mut recorded: Option<Compared> = None;
        let mut exception: Option<String> = None;
        while let Some(field) = fields.next(&mut map)? {
            match field {
                CallField::Request => {
                    let request: Request = map.next_value()?;
                    if let Some(Ok(world)) = &mut self.replayer.world {
                        let ran = world.execute(&request.api_name, &request.parameters);
                        let outcome = (ran.response, ran.exception);
                        executed = Some((request, outcome));
                    }
                }
                CallField::Response => match &executed {
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
                CallField::Exception => exception = map.next_value()?,
            }
        }
        fields.require(&[CallField::Request])?;
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
