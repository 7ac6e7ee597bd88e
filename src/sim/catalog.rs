//! The tool catalog: what every tool is called, what it takes and returns,
//! and which of its properties the simulator, the linter, the prompts and
//! the evaluator rely on. The specs themselves live beside their behaviour
//! in `plugins/`.

use serde_json::{Map, Value};

use super::pyargs::{lookup, py_eq};
use super::reply::{Reply, Response};
use super::table::field;
use super::world::ToolCtx;
use super::TextSimilarity;
use crate::model::GoldCall;

/// The seven plugins (ToolTalk calls them suites).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Plugin {
    AccountTools,
    Alarm,
    Calendar,
    Email,
    Messages,
    Reminder,
    Weather,
}

impl Plugin {
    pub const ALL: [Plugin; 7] = [
        Plugin::AccountTools,
        Plugin::Alarm,
        Plugin::Calendar,
        Plugin::Email,
        Plugin::Messages,
        Plugin::Reminder,
        Plugin::Weather,
    ];

    /// The name used in `suites_used`.
    pub fn name(self) -> &'static str {
        match self {
            Plugin::AccountTools => "AccountTools",
            Plugin::Alarm => "Alarm",
            Plugin::Calendar => "Calendar",
            Plugin::Email => "Email",
            Plugin::Messages => "Messages",
            Plugin::Reminder => "Reminder",
            Plugin::Weather => "Weather",
        }
    }

    pub fn from_name(name: &str) -> Option<Plugin> {
        Plugin::ALL.into_iter().find(|p| p.name() == name)
    }

    /// A one-line description for documentation and prompts.
    pub fn description(self) -> &'static str {
        super::plugins::plugin_description(self)
    }

    pub fn tools(self) -> impl Iterator<Item = &'static ToolSpec> {
        catalog().iter().copied().filter(move |t| t.plugin == self)
    }
}

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
    Email,
    /// `ddd-ddd-dddd`
    Phone,
    /// An id the world made up earlier (alarm_id, event_id, ...): it must
    /// come from an earlier result.
    Id,
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

/// Runs a tool: arguments as the caller gave them (the session token already
/// injected for auth tools), the result or the exception text. Most tools
/// build a JSON value (`Reply::from`); the queries that answer with
/// database items share them ([`Reply`]).
pub type RunFn = fn(&mut ToolCtx<'_>, &Map<String, Value>) -> Result<Reply, String>;

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
    pub plugin: Plugin,
    pub description: &'static str,
    pub parameters: &'static [ParamSpec],
    pub returns: &'static [FieldSpec],
    /// Changes the world (sends, creates, deletes); a wrong action is worse
    /// than a wrong query.
    pub is_action: bool,
    /// Needs a logged-in user; the world injects `session_token`.
    pub requires_auth: bool,
    /// The database the tool reads or writes, by file stem.
    pub database: Option<&'static str>,
    pub run: RunFn,
    pub matches: MatchFn,
}

impl ToolSpec {
    pub fn parameter(&self, name: &str) -> Option<&'static ParamSpec> {
        self.parameters
            .iter()
            .find(|p| super::names::same(p.name, name))
    }
}

/// All tools, plugin by plugin in the order of [`Plugin::ALL`].
pub fn catalog() -> &'static [&'static ToolSpec] {
    super::plugins::all_tools()
}

/// A tool by name.
///
/// Every executed and every scored call looks its tool up, so the catalog
/// is indexed once: names fall into buckets by their length and end bytes,
/// and a lookup compares the name with the one or two tools in its bucket.
pub fn tool(name: &str) -> Option<&'static ToolSpec> {
    static INDEX: std::sync::OnceLock<ToolIndex> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| ToolIndex::new(catalog())).find(name)
}

/// The catalog's tools in buckets by [`ToolIndex::bucket`].
struct ToolIndex {
    buckets: Vec<Vec<&'static ToolSpec>>,
}

impl ToolIndex {
    const BUCKETS: usize = 64;

    fn new(tools: &[&'static ToolSpec]) -> Self {
        let mut buckets = vec![Vec::new(); Self::BUCKETS];
        for &tool in tools {
            buckets[Self::bucket(tool.name)].push(tool);
        }
        ToolIndex { buckets }
    }

    fn bucket(name: &str) -> usize {
        let bytes = name.as_bytes();
        let (first, last) = match bytes {
            [] => (0, 0),
            [first, .., last] => (*first, *last),
            [only] => (*only, *only),
        };
        (bytes.len() * 7 + usize::from(first) * 3 + usize::from(last)) % Self::BUCKETS
    }

    fn find(&self, name: &str) -> Option<&'static ToolSpec> {
        self.buckets[Self::bucket(name)]
            .iter()
            .copied()
            .find(|t| super::names::same(t.name, name))
    }
}

/// The reference's default comparator: same result, same exception, and
/// every argument the gold call gives has the same value in the prediction.
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
    gold.request
        .parameters
        .iter()
        .all(|(key, value)| lookup(prediction.parameters, key).is_some_and(|p| py_eq(p, value)))
}

/// Whether `prediction` lists at least the records `gold` lists: every id
/// under `list_key`/`id_key` in the gold result appears in the prediction's
/// (Python's `in`). The listing queries' comparators share this.
pub fn lists_at_least(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    list_key: &str,
    id_key: &str,
) -> bool {
    // The ids are borrowed where they lie and fields found by name (a
    // result's object has a handful of keys): nothing is copied or hashed.
    fn ids<'a>(
        response: Response<'a>,
        list_key: &'a str,
        id_key: &'a str,
    ) -> impl Iterator<Item = &'a Value> + Clone {
        response
            .list(list_key)
            .filter_map(move |record| field(record, id_key))
    }
    let found = ids(prediction.response, list_key, id_key);
    ids(Response::Json(&gold.response), list_key, id_key)
        .all(|id| found.clone().any(|f| py_eq(f, id)))
}

/// Whether both calls raised the same exception (or none) as the same user
/// (the injected session token).
pub fn same_outcome_and_user(prediction: CallRef<'_>, gold: &GoldCall) -> bool {
    prediction.exception == gold.exception.as_deref()
        && lookup(prediction.parameters, "session_token")
            == lookup(&gold.request.parameters, "session_token")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Request;
    use crate::sim::similarity::ExactText;
    use serde_json::json;

    #[test]
    fn every_tool_is_found_by_its_name_and_nothing_else_is() {
        for &spec in catalog() {
            assert!(
                std::ptr::eq(tool(spec.name).unwrap(), spec),
                "{}",
                spec.name
            );
            for near in [
                format!("{}x", spec.name),
                spec.name[1..].to_string(),
                spec.name.to_lowercase(),
            ] {
                assert!(tool(&near).is_none(), "{near}");
            }
        }
        for name in ["", "A", "Nope", "QueryCalendarr", "日本"] {
            assert!(tool(name).is_none(), "{name}");
        }
    }

    fn call(params: Value, response: Value) -> GoldCall {
        GoldCall {
            request: Request {
                api_name: "T".into(),
                parameters: params.as_object().unwrap().clone(),
            },
            response,
            exception: None,
        }
    }

    #[test]
    fn default_comparison_uses_python_equality() {
        // Python: 1 == 1.0 == True, and dicts ignore key order.
        let gold = call(json!({"n": 1, "s": "a"}), json!({"x": 1, "y": 2}));
        let same = call(
            json!({"n": 1.0, "s": "a", "extra": 0}),
            json!({"y": 2, "x": true}),
        );
        assert!(default_matches(CallRef::from(&same), &gold, &ExactText));
        let other = call(json!({"n": "1", "s": "a"}), json!({"x": 1, "y": 2}));
        assert!(!default_matches(CallRef::from(&other), &gold, &ExactText));
        let missing = call(json!({"s": "a"}), json!({"x": 1, "y": 2}));
        assert!(!default_matches(CallRef::from(&missing), &gold, &ExactText));
    }

    #[test]
    fn a_listing_matches_when_it_shows_at_least_the_gold_records() {
        let listing = |ids: &[&str]| {
            let records: Vec<Value> = ids.iter().map(|id| json!({"alarm_id": id})).collect();
            call(json!({"session_token": "t"}), json!({"alarms": records}))
        };
        let gold = listing(&["a", "b"]);
        assert!(lists_at_least(
            CallRef::from(&listing(&["b", "c", "a"])),
            &gold,
            "alarms",
            "alarm_id"
        ));
        assert!(!lists_at_least(
            CallRef::from(&listing(&["a"])),
            &gold,
            "alarms",
            "alarm_id"
        ));
        assert!(lists_at_least(
            CallRef::from(&listing(&[])),
            &listing(&[]),
            "alarms",
            "alarm_id"
        ));
        assert!(same_outcome_and_user(CallRef::from(&listing(&[])), &gold));
        let other_user = call(json!({"session_token": "u"}), json!({"alarms": []}));
        assert!(!same_outcome_and_user(CallRef::from(&other_user), &gold));
    }
}
