//! A suite's tool catalog: what every tool is called, what it takes and
//! returns, and which of its properties the simulator, the linter, the
//! prompts and the evaluator rely on. Suites define their tools' specs
//! beside their behaviour (`suites/<name>/`); everything above the seam
//! reads them through [`Catalog`].

use serde_json::{Map, Value};

use std::collections::HashMap;

use super::TextSimilarity;
use crate::dialogue::GoldCall;
use crate::sim::Response;

/// The JSON type of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    String,
    Integer,
    Number,
    Boolean,
    /// An array whose items have the given type.
    Array(&'static ParamType),
    Object,
}

impl ParamType {
    /// The JSON Schema type name.
    pub fn json_name(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
            ParamType::Array(_) => "array",
            ParamType::Object => "object",
        }
    }
}

/// A format a string value must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueFormat {
    /// Any text.
    Any,
    /// `%Y-%m-%d %H:%M:%S`
    Timestamp,
    /// `%Y-%m-%d`
    Date,
    /// `%H:%M:%S`
    Time,
    /// `%m-%d` (a day of the year)
    MonthDay,
    Email,
    /// `ddd-ddd-dddd`
    Phone,
    /// An id the world made up earlier (alarm_id, event_id, ...): it must
    /// come from an earlier result.
    Id,
    /// A credential only an earlier call's result can supply (a tool whose
    /// [`SessionEffect`] is `Opens`).
    Token,
}

/// How a suite's dialogues write argument values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentEncoding {
    /// JSON values of the declared type.
    Json,
    /// Text as the model typed it, which must convert to the declared type;
    /// lists are Python literals (`['John', 'Mary']`).
    PythonText,
}

/// What a successful call does to the user's session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionEffect {
    None,
    /// Logs the user in: its result hands out the credential.
    Opens,
    /// Logs the user out.
    Closes,
}

/// One parameter of a tool.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    pub ty: ParamType,
    pub description: &'static str,
    /// Required by the documentation (what the model is told).
    pub required: bool,
    /// Allowed values, when the parameter is an enumeration.
    pub enum_values: &'static [&'static str],
    pub format: ValueFormat,
    /// Text the assistant composes (a message body, an email subject, an
    /// event description): it is not expected to appear earlier verbatim.
    pub free_text: bool,
    /// One end of a search window the assistant chooses: it picks the
    /// bounds to cover what the user asked about ("anything this month?"
    /// becomes the month's first and last second), so they are judged more
    /// loosely than values the user must have given.
    pub bound: bool,
    /// For an object, or a list of objects: the members it may have, when
    /// the catalog describes them (members not listed are read by their
    /// shape).
    pub fields: &'static [ParamSpec],
}

impl ParamSpec {
    /// A plain parameter; adjust with struct update syntax.
    pub const fn new(
        name: &'static str,
        ty: ParamType,
        description: &'static str,
        required: bool,
    ) -> Self {
        ParamSpec {
            name,
            ty,
            description,
            required,
            enum_values: &[],
            format: ValueFormat::Any,
            free_text: false,
            bound: false,
            fields: &[],
        }
    }
}

/// A field of a tool's result, for documentation.
#[derive(Debug, Clone, Copy)]
pub struct FieldSpec {
    pub name: &'static str,
    /// JSON type name.
    pub ty: &'static str,
    pub description: &'static str,
    /// For objects and arrays of objects: their fields.
    pub fields: &'static [FieldSpec],
}

impl FieldSpec {
    pub const fn new(name: &'static str, ty: &'static str, description: &'static str) -> Self {
        FieldSpec {
            name,
            ty,
            description,
            fields: &[],
        }
    }
}

/// A predicted call as a comparator sees it: the tool, the arguments it
/// ran with, its result. Comparators read arguments by key: `parameters`
/// holds the executed arguments, though not always in the order they were
/// executed in (see `eval::Arguments`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallRef<'a> {
    pub api_name: &'a str,
    pub parameters: &'a Map<String, Value>,
    pub response: Response<'a>,
    pub exception: Option<&'a str>,
}

impl<'a> From<&'a GoldCall> for CallRef<'a> {
    fn from(call: &'a GoldCall) -> Self {
        CallRef {
            api_name: &call.request.api_name,
            parameters: &call.request.parameters,
            response: Response::Json(&call.response),
            exception: call.exception.as_deref(),
        }
    }
}

/// Algorithm 2's comparator: does `prediction` (executed, with its result)
/// satisfy `gold`?
pub type MatchFn = fn(prediction: CallRef<'_>, gold: &GoldCall, text: &dyn TextSimilarity) -> bool;

/// Everything about one tool.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    pub name: &'static str,
    /// The group the tool belongs to (ToolTalk's plugins; the names in a
    /// conversation's `suites_used`).
    pub group: &'static str,
    pub description: &'static str,
    pub parameters: &'static [ParamSpec],
    pub returns: &'static [FieldSpec],
    /// Changes the world (sends, creates, deletes); a wrong action is worse
    /// than a wrong query.
    pub is_action: bool,
    /// Needs a logged-in user; the world injects `session_token`.
    pub requires_auth: bool,
    /// Whether it logs the user in or out.
    pub session: SessionEffect,
    /// Its result is today's date, which anchors relative dates after it.
    pub tells_today: bool,
    /// The database the tool reads or writes, by file stem.
    pub database: Option<&'static str>,
    /// When a predicted call counts as a gold call of this tool. How the
    /// tool runs is its suite's business (its world).
    pub matches: MatchFn,
}

impl ToolSpec {
    /// This spec, naming the database its tool reads or writes.
    pub const fn reading(mut self, database: &'static str) -> Self {
        self.database = Some(database);
        self
    }

    pub fn parameter(&self, name: &str) -> Option<&'static ParamSpec> {
        self.parameters.iter().find(|p| p.name == name)
    }
}

/// A group of tools documented together (ToolTalk's plugins).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    pub name: &'static str,
    /// A one-line description for documentation and prompts.
    pub description: &'static str,
}

/// A suite's tools, in the suite's order, found by name.
#[derive(Debug)]
pub struct Catalog {
    groups: Vec<Group>,
    tools: Vec<&'static ToolSpec>,
    by_name: HashMap<&'static str, &'static ToolSpec>,
}

impl Catalog {
    pub fn new(groups: Vec<Group>, tools: Vec<&'static ToolSpec>) -> Self {
        let by_name = tools.iter().map(|&tool| (tool.name, tool)).collect();
        Catalog {
            groups,
            tools,
            by_name,
        }
    }

    /// Every tool, group by group.
    pub fn tools(&self) -> &[&'static ToolSpec] {
        &self.tools
    }

    /// A tool by its exact name.
    pub fn tool(&self, name: &str) -> Option<&'static ToolSpec> {
        self.by_name.get(name).copied()
    }

    /// The groups, in the suite's order.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The tools of one group.
    pub fn tools_of<'a>(&'a self, group: &'a str) -> impl Iterator<Item = &'static ToolSpec> + 'a {
        self.tools.iter().copied().filter(move |t| t.group == group)
    }
}

/// The default comparator, the reference's rule in ToolTalk, for a tool
/// without its own: same result, same exception, and every argument the
/// gold call gives has the same value in the prediction.
pub fn default_matches(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    _text: &dyn TextSimilarity,
) -> bool {
    prediction.response.py_eq(&gold.response)
        && prediction.exception == gold.exception.as_deref()
        && gold_arguments_equal(prediction, gold)
}

/// Every argument of the gold call is present in the prediction with an equal value.
pub fn gold_arguments_equal(prediction: CallRef<'_>, gold: &GoldCall) -> bool {
    gold.request.parameters.iter().all(|(key, value)| {
        crate::sim::pyargs::lookup(prediction.parameters, key)
            .is_some_and(|p| crate::sim::pyargs::py_eq(p, value))
    })
}
