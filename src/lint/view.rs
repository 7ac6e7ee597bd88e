//! One view of a dialogue for the tool rules, whatever its file format:
//! utterances and calls in the order they happen, each call with its
//! arguments, result and place in the file, and the catalog that applies.

use chrono::NaiveDateTime;

use super::document::TasksFile;
use super::{pointer_token, Anchor, Document};
use crate::dialogue::{Conversation, Role};
use crate::formats::apibank::{Dialogue, LineKind};
use crate::json::tree::{Json, Object};
use crate::suite::{ArgumentEncoding, Suite, ToolSpec};

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
    /// A task's gold action (tau2): `turn` is the task's position in the
    /// file and `call` the action's index in its `actions`.
    pub in_task: bool,
}

impl CallRef<'_> {
    /// Pointer to the call's object (conversation) or "" (API-Bank line).
    pub fn base(&self) -> String {
        match self.line {
            Some(_) => String::new(),
            None if self.in_task => TasksFile::action_pointer(self.turn, self.call),
            None => format!("/conversation/{}/apis/{}", self.turn, self.call),
        }
    }

    fn arguments_pointer(&self) -> String {
        match self.line {
            Some(_) => "/param_dict".to_owned(),
            None if self.in_task => format!("{}/arguments", self.base()),
            None => format!("{}/request/parameters", self.base()),
        }
    }

    pub fn argument_anchor(&self, name: &str) -> Anchor {
        self.argument_part_anchor(name, "")
    }

    /// A place inside an argument's value: `below` holds the pointer
    /// tokens from the value down (`/1/value`), "" for the value itself.
    pub fn argument_part_anchor(&self, name: &str, below: &str) -> Anchor {
        Anchor::value(format!(
            "{}/{}{below}",
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
            None if self.in_task => Anchor::value(format!("{}/name", self.base())),
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
#[derive(Clone)]
pub struct View<'a> {
    /// The suite the dialogue belongs to: its catalog and conventions.
    pub suite: &'static dyn Suite,
    /// Utterances and calls in the order they happen (a turn's calls come
    /// before the words the assistant says after them).
    pub events: Vec<Event<'a>>,
    pub now: Option<NaiveDateTime>,
    pub shown: Vec<Shown>,
    /// A session is open before the first turn.
    pub starts_logged_in: bool,
    /// Whether calls record their results. A scenario's ground-truth calls
    /// (API-Bank level 3) record none: a login among them is taken to
    /// succeed (whether it does is `verify`'s to say).
    pub records_results: bool,
}

impl<'a> View<'a> {
    /// The view of a document, when it is a dialogue that could be read
    /// (for a conversation: the model's reading and its calls' trees).
    /// The view of a document of `suite`, whose format records results or
    /// not, when it is a dialogue that could be read (for a conversation:
    /// the model's reading and its calls' trees).
    pub fn of(
        document: &'a Document<'a>,
        suite: &'static dyn Suite,
        records_results: bool,
        conversation: Option<(&'a Conversation, &'a CallTrees<'a>)>,
    ) -> Option<View<'a>> {
        let mut view = match document {
            Document::Conversation(_) => {
                conversation.map(|(c, trees)| conversation_view(suite, c, trees))
            }
            Document::Lines(dialogue) => Some(dialogue_view(suite, dialogue)),
            Document::Pool(_) => None,
            Document::Tasks(file) => Some(tasks_view(suite, file)),
        }?;
        view.records_results = records_results;
        Some(view)
    }

    pub fn calls(&self) -> impl Iterator<Item = &CallRef<'a>> {
        self.events.iter().filter_map(|e| match e {
            Event::Call(c) => Some(c),
            Event::Say { .. } => None,
        })
    }

    /// The tool a call names, in the suite's catalog.
    pub fn tool(&self, name: &str) -> Option<&'static ToolSpec> {
        self.suite.catalog().tool(name)
    }

    /// Every tool name in the suite's catalog.
    pub fn tool_names(&self) -> Vec<&'static str> {
        self.suite
            .catalog()
            .tools()
            .iter()
            .map(|t| t.name)
            .collect()
    }

    /// How the dialogue writes argument values.
    pub fn encoding(&self) -> ArgumentEncoding {
        self.suite.argument_encoding()
    }

    /// Whether the world, not the model, supplies argument `name` of `tool`.
    pub fn is_injected(&self, tool: &ToolSpec, name: &str) -> bool {
        tool.requires_auth && self.suite.injected_argument() == Some(name)
    }
}

impl std::fmt::Debug for View<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View")
            .field("suite", &self.suite.name())
            .field("events", &self.events)
            .field("now", &self.now)
            .field("shown", &self.shown)
            .field("starts_logged_in", &self.starts_logged_in)
            .finish()
    }
}

/// A conversation's gold calls as the rules read them: each call's
/// arguments and result as trees borrowed from the model, in dialogue order.
#[derive(Debug, Clone)]
pub struct CallTrees<'a>(Vec<(Object<'a>, Json<'a>)>);

impl<'a> CallTrees<'a> {
    pub fn of(conversation: &'a Conversation) -> CallTrees<'a> {
        CallTrees(
            conversation
                .gold_calls()
                .map(|(_, _, call)| {
                    (
                        Object::from(&call.request.parameters),
                        Json::from(&call.response),
                    )
                })
                .collect(),
        )
    }
}

fn conversation_view<'a>(
    suite: &'static dyn Suite,
    conv: &'a Conversation,
    trees: &'a CallTrees<'a>,
) -> View<'a> {
    let mut events = Vec::new();
    let mut trees = trees.0.iter();
    for (t, turn) in conv.conversation.iter().enumerate() {
        let speaker = match turn.role {
            Role::User => Speaker::User,
            Role::Assistant => Speaker::Assistant,
        };
        for (c, (call, (arguments, result))) in turn.calls().iter().zip(&mut trees).enumerate() {
            events.push(Event::Call(CallRef {
                turn: t,
                call: c,
                api_name: &call.request.api_name,
                arguments,
                converted: None,
                // A call that recorded no result (null or left out) has none.
                result: Some(result).filter(|r| !r.is_null()),
                exception: call.exception.as_deref(),
                line: None,
                in_task: false,
            }));
        }
        events.push(Event::Say {
            speaker,
            turn: t,
            text: &turn.text,
        });
    }
    let meta = &conv.metadata;
    let mut shown = Vec::new();
    if let Some(location) = &meta.location {
        shown.push(Shown {
            name: "metadata.location",
            value: location.clone(),
        });
    }
    shown.push(Shown {
        name: "metadata.timestamp",
        value: meta.timestamp.clone(),
    });
    if let Some(username) = &meta.username {
        shown.push(Shown {
            name: "metadata.username",
            value: username.clone(),
        });
    }
    View {
        suite,
        events,
        now: NaiveDateTime::parse_from_str(&meta.timestamp, "%Y-%m-%d %H:%M:%S").ok(),
        shown,
        starts_logged_in: conv.user.session_token.is_some() || meta.session_token.is_some(),
        records_results: true,
    }
}

fn dialogue_view<'a>(suite: &'static dyn Suite, dialogue: &'a Dialogue<'a>) -> View<'a> {
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
                    in_task: false,
                }));
            }
            None => {}
        }
        if line.role() == Some("API") {
            api_index += 1;
        }
    }
    View {
        suite,
        events,
        now: None,
        shown: Vec::new(),
        starts_logged_in: false,
        records_results: dialogue.source.is_none(),
    }
}

/// A tasks file's gold actions: calls without results (tasks record
/// none) and no words around them; what the user is told is the task
/// rules' to weigh.
fn tasks_view<'a>(suite: &'static dyn Suite, file: &'a TasksFile<'a>) -> View<'a> {
    static EMPTY: std::sync::LazyLock<Object<'static>> =
        std::sync::LazyLock::new(|| Object::from_members(Vec::new()));
    let mut events = Vec::new();
    for (t, task) in file.value.as_array().unwrap_or_default().iter().enumerate() {
        let actions = task
            .pointer("/evaluation_criteria/actions")
            .and_then(Json::as_array)
            .unwrap_or_default();
        for (c, action) in actions.iter().enumerate() {
            events.push(Event::Call(CallRef {
                turn: t,
                call: c,
                api_name: action
                    .get("name")
                    .and_then(Json::as_str)
                    .unwrap_or_default(),
                arguments: action
                    .get("arguments")
                    .and_then(Json::as_object)
                    .unwrap_or(&EMPTY),
                converted: None,
                result: None,
                exception: None,
                line: None,
                in_task: true,
            }));
        }
    }
    View {
        suite,
        events,
        now: None,
        shown: Vec::new(),
        starts_logged_in: false,
        records_results: false,
    }
}

pub use crate::words::closest_name;

/// A name as a message shows it: whole up to [`SHOWN_CHARS`] characters,
/// else its start and how long it is (the file holds the rest).
pub fn shown(name: &str) -> std::borrow::Cow<'_, str> {
    match name.char_indices().nth(SHOWN_CHARS) {
        None => std::borrow::Cow::Borrowed(name),
        Some((cut, _)) => std::borrow::Cow::Owned(format!(
            "{}… ({} characters)",
            &name[..cut],
            name.chars().count()
        )),
    }
}

/// The longest name a message shows whole.
pub const SHOWN_CHARS: usize = 60;

#[cfg(test)]
mod name_tests {
    use super::*;

    #[test]
    fn hints_are_bounded_and_long_names_shortened() {
        let names = ["AddAlarm", "DeleteAlarm", "FindAlarms"];
        assert_eq!(closest_name("addalarm", &names), Some("AddAlarm"));
        assert_eq!(closest_name("AddAlarms", &names), Some("AddAlarm"));
        assert_eq!(closest_name("Weather", &names), None);
        // A 10 MB name is dismissed by its length, at once.
        let huge = "A".repeat(10_000_000);
        let started = std::time::Instant::now();
        assert_eq!(closest_name(&huge, &names), None);
        assert!(started.elapsed() < std::time::Duration::from_millis(500));
        assert_eq!(shown("AddAlarm"), "AddAlarm");
        let long = shown(&huge);
        assert!(long.starts_with(&"A".repeat(SHOWN_CHARS)));
        assert!(long.ends_with("… (10000000 characters)"), "{long}");
        assert!(long.len() < 100);
    }
}
