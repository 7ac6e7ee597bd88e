//! One view of a dialogue for the tool rules, whatever its file format:
//! utterances and calls in the order they happen, each call with its
//! arguments, result and place in the file, and the catalog that applies.

use chrono::NaiveDateTime;

use super::conversation::Conversation;
use super::{pointer_token, Anchor, Document};
use crate::json::tree::{Json, Object};
use crate::suite::{ParamType, ToolSpec, ValueFormat};
use crate::suites::apibank::{self, ApiFormat, ApiSpec, ApiType, LineKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    ToolTalk,
    ApiBank,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    User,
    Assistant,
}

/// A tool call and where it is.
#[derive(Debug, Clone)]
pub struct CallRef<'a> {
    /// Conversation: turn position; API-Bank: line position.
    pub turn: usize,
    /// Conversation: position in the turn's `apis`; API-Bank: index among
    /// the file's API lines.
    pub call: usize,
    pub api_name: &'a str,
    /// The arguments as recorded.
    pub arguments: &'a Object<'a>,
    /// API-Bank: the arguments after type conversion, when recorded.
    pub converted: Option<&'a Object<'a>>,
    pub result: Option<&'a Json<'a>>,
    pub exception: Option<&'a str>,
    /// API-Bank: the line the pointers are relative to.
    pub line: Option<usize>,
}

impl CallRef<'_> {
    /// Pointer to the call's object (conversation) or "" (API-Bank line).
    pub fn base(&self) -> String {
        match self.line {
            Some(_) => String::new(),
            None => format!("/conversation/{}/apis/{}", self.turn, self.call),
        }
    }

    fn arguments_pointer(&self) -> String {
        match self.line {
            Some(_) => "/param_dict".to_owned(),
            None => format!("{}/request/parameters", self.base()),
        }
    }

    pub fn argument_anchor(&self, name: &str) -> Anchor {
        Anchor::value(format!(
            "{}/{}",
            self.arguments_pointer(),
            pointer_token(name)
        ))
        .in_line(self.line)
    }

    pub fn argument_key_anchor(&self, name: &str) -> Anchor {
        Anchor::key(format!(
            "{}/{}",
            self.arguments_pointer(),
            pointer_token(name)
        ))
        .in_line(self.line)
    }

    pub fn arguments_anchor(&self) -> Anchor {
        Anchor::value(self.arguments_pointer()).in_line(self.line)
    }

    pub fn name_anchor(&self) -> Anchor {
        match self.line {
            Some(_) => Anchor::value("/api_name").in_line(self.line),
            None => Anchor::value(format!("{}/request/api_name", self.base())),
        }
    }

    /// Whether the call raised.
    pub fn failed(&self) -> bool {
        self.exception.is_some()
    }
}

#[derive(Debug, Clone)]
pub enum Event<'a> {
    Say {
        speaker: Speaker,
        turn: usize,
        text: &'a str,
    },
    Call(CallRef<'a>),
}

/// What the assistant is told before the dialogue starts.
#[derive(Debug, Clone)]
pub struct Shown {
    pub name: &'static str,
    pub value: String,
}

/// A dialogue, as the tool rules see it.
#[derive(Debug, Clone)]
pub struct View<'a> {
    pub flavor: Flavor,
    /// Utterances and calls in the order they happen (a turn's calls come
    /// before the words the assistant says after them).
    pub events: Vec<Event<'a>>,
    pub now: Option<NaiveDateTime>,
    pub shown: Vec<Shown>,
    /// A session is open before the first turn.
    pub starts_logged_in: bool,
}

impl<'a> View<'a> {
    /// The view of a document, when it is a dialogue that could be read
    /// (for a conversation: its reading, [`FileInput::conversation_of`]).
    ///
    /// [`FileInput::conversation_of`]: super::registry::FileInput::conversation_of
    pub fn of(
        document: &'a Document<'a>,
        conversation: Option<&Conversation<'a>>,
    ) -> Option<View<'a>> {
        match document {
            Document::ToolTalk(_) => conversation.map(tooltalk),
            Document::ApiBank(dialogue) => Some(apibank_view(dialogue)),
            Document::Pool(_) => None,
        }
    }

    pub fn calls(&self) -> impl Iterator<Item = &CallRef<'a>> {
        self.events.iter().filter_map(|e| match e {
            Event::Call(c) => Some(c),
            Event::Say { .. } => None,
        })
    }

    /// The tool a call names, in the catalog that applies.
    pub fn tool(&self, name: &str) -> Option<Tool> {
        match self.flavor {
            Flavor::ToolTalk => crate::suites::tooltalk::tool(name).map(Tool::ToolTalk),
            Flavor::ApiBank => apibank::api(name).map(Tool::ApiBank),
        }
    }

    /// Every tool name in the catalog that applies.
    pub fn tool_names(&self) -> Vec<&'static str> {
        match self.flavor {
            Flavor::ToolTalk => crate::suites::tooltalk::catalog()
                .tools()
                .iter()
                .map(|t| t.name)
                .collect(),
            Flavor::ApiBank => apibank::catalog().iter().map(|a| a.name).collect(),
        }
    }
}

fn tooltalk<'a>(conv: &Conversation<'a>) -> View<'a> {
    let mut events = Vec::new();
    for (t, turn) in conv.turns.iter().enumerate() {
        let speaker = match turn.role {
            crate::dialogue::Role::User => Speaker::User,
            crate::dialogue::Role::Assistant => Speaker::Assistant,
        };
        for (c, call) in turn.calls.iter().enumerate() {
            events.push(Event::Call(CallRef {
                turn: t,
                call: c,
                api_name: call.api_name,
                arguments: call.parameters,
                converted: None,
                result: call.response,
                exception: call.exception,
                line: None,
            }));
        }
        events.push(Event::Say {
            speaker,
            turn: t,
            text: turn.text,
        });
    }
    let meta = &conv.metadata;
    let mut shown = Vec::new();
    if let Some(location) = meta.location {
        shown.push(Shown {
            name: "metadata.location",
            value: location.to_owned(),
        });
    }
    shown.push(Shown {
        name: "metadata.timestamp",
        value: meta.timestamp.to_owned(),
    });
    if let Some(username) = meta.username {
        shown.push(Shown {
            name: "metadata.username",
            value: username.to_owned(),
        });
    }
    View {
        flavor: Flavor::ToolTalk,
        events,
        now: NaiveDateTime::parse_from_str(meta.timestamp, "%Y-%m-%d %H:%M:%S").ok(),
        shown,
        starts_logged_in: conv.user_session_token.is_some() || meta.session_token.is_some(),
    }
}

fn apibank_view<'a>(dialogue: &'a apibank::Dialogue<'a>) -> View<'a> {
    let mut events = Vec::new();
    let mut api_index = 0;
    for line in &dialogue.lines {
        match line.kind() {
            Some(LineKind::User(text)) => events.push(Event::Say {
                speaker: Speaker::User,
                turn: line.position,
                text,
            }),
            Some(LineKind::Ai(text)) => events.push(Event::Say {
                speaker: Speaker::Assistant,
                turn: line.position,
                text,
            }),
            Some(LineKind::Api(call)) => {
                events.push(Event::Call(CallRef {
                    turn: line.position,
                    call: api_index,
                    api_name: call.api_name,
                    arguments: call.param_dict,
                    converted: call.input,
                    result: call.output,
                    exception: call.exception,
                    line: Some(line.position),
                }));
            }
            None => {}
        }
        if line.role() == Some("API") {
            api_index += 1;
        }
    }
    View {
        flavor: Flavor::ApiBank,
        events,
        now: None,
        shown: Vec::new(),
        starts_logged_in: false,
    }
}

/// A tool from either catalog.
#[derive(Debug, Clone, Copy)]
pub enum Tool {
    ToolTalk(&'static ToolSpec),
    ApiBank(&'static ApiSpec),
}

/// What a value must look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Any,
    Timestamp,
    Date,
    Time,
    MonthDay,
    Email,
    Phone,
    /// Made up by the world earlier (ids).
    Id,
    /// API-Bank's user token.
    Token,
}

/// The type a value must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Json(ParamType),
    ApiBank(ApiType),
}

/// One parameter, from either catalog.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub ty: Type,
    pub required: bool,
    pub enum_values: &'static [&'static str],
    pub format: Format,
    pub free_text: bool,
    /// One end of a search window the assistant chooses (see
    /// [`SEARCH_BOUNDS`]).
    pub bound: bool,
}

/// The parameters that bound a search window: the assistant picks them to
/// cover what the user asked about ("anything this month?" becomes the
/// month's first and last second), so they are judged more loosely than
/// values the user must have given (`Evidence::ground_bound`). Kept here
/// rather than in the catalogs, which have no place for it: tool, then its
/// bounds.
pub const SEARCH_BOUNDS: &[(&str, &[&str])] = &[
    ("QueryCalendar", &["start_time", "end_time"]),
    ("SearchInbox", &["start_date", "end_date"]),
    ("SearchMessages", &["start_date", "end_date"]),
    ("FindAlarms", &["start_range", "end_range"]),
    // API-Bank
    ("QueryHealthData", &["start_time", "end_time"]),
];

/// Whether `param` of `tool` bounds a search window.
pub fn is_search_bound(tool: &str, param: &str) -> bool {
    SEARCH_BOUNDS
        .iter()
        .any(|(t, params)| *t == tool && params.contains(&param))
}

impl Tool {
    pub fn name(&self) -> &'static str {
        match self {
            Tool::ToolTalk(t) => t.name,
            Tool::ApiBank(a) => a.name,
        }
    }

    pub fn params(&self) -> Vec<Param> {
        match self {
            Tool::ToolTalk(t) => t
                .parameters
                .iter()
                .map(|p| self.tooltalk_param(p))
                .collect(),
            Tool::ApiBank(a) => a.parameters.iter().map(|p| self.apibank_param(p)).collect(),
        }
    }

    pub fn param(&self, name: &str) -> Option<Param> {
        match self {
            Tool::ToolTalk(t) => t.parameter(name).map(|p| self.tooltalk_param(p)),
            Tool::ApiBank(a) => a.parameter(name).map(|p| self.apibank_param(p)),
        }
    }

    fn tooltalk_param(&self, p: &'static crate::suite::ParamSpec) -> Param {
        Param {
            name: p.name,
            ty: Type::Json(p.ty),
            required: p.required,
            enum_values: p.enum_values,
            format: match p.format {
                ValueFormat::Any => Format::Any,
                ValueFormat::Timestamp => Format::Timestamp,
                ValueFormat::Date => Format::Date,
                ValueFormat::Time => Format::Time,
                ValueFormat::Email => Format::Email,
                ValueFormat::Phone => Format::Phone,
                ValueFormat::Id => Format::Id,
            },
            free_text: p.free_text,
            bound: is_search_bound(self.name(), p.name),
        }
    }

    fn apibank_param(&self, p: &'static apibank::ApiParam) -> Param {
        Param {
            name: p.name,
            ty: Type::ApiBank(p.ty),
            required: p.required,
            enum_values: p.enum_values,
            format: match p.format {
                ApiFormat::Any => Format::Any,
                ApiFormat::Timestamp => Format::Timestamp,
                ApiFormat::Date => Format::Date,
                ApiFormat::MonthDay => Format::MonthDay,
                ApiFormat::Token => Format::Token,
            },
            free_text: p.free_text,
            bound: is_search_bound(self.name(), p.name),
        }
    }

    /// Arguments the world supplies, not the model (ToolTalk's session token).
    pub fn is_injected(&self, name: &str) -> bool {
        matches!(self, Tool::ToolTalk(t) if t.requires_auth && name == "session_token")
    }

    /// Needs somebody logged in.
    pub fn requires_auth(&self) -> bool {
        match self {
            Tool::ToolTalk(t) => t.requires_auth,
            Tool::ApiBank(a) => a.requires_token(),
        }
    }
}

/// Do two names differ by little (a typo)? For "did you mean" hints.
pub fn closest_name<'n>(name: &str, candidates: &[&'n str]) -> Option<&'n str> {
    candidates
        .iter()
        .map(|c| {
            (
                strsim::normalized_damerau_levenshtein(&name.to_lowercase(), &c.to_lowercase()),
                *c,
            )
        })
        .filter(|(score, _)| *score >= 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}
