//! The world of one API-Bank dialogue: its [`State`] and the way the
//! reference's `ToolManager.api_call` runs a call over it (find the API,
//! convert the arguments, call it with them as keyword arguments).
//!
//! Which arguments run: a replayed line that records its `result.input`
//! runs with that input, the arguments as the reference's tools received
//! them when the dialogue was recorded (lists already lists), as long as
//! that input is what the line's `param_dict` gives (a line edited since
//! it was filled runs as written, so verify shows the stale recording and
//! fill replaces it); otherwise
//! (a line written by hand, a prediction) `param_dict` is converted as
//! `api_call` converts it. That conversion leaves text given for a list
//! parameter as text, as the reference does: it is what the reference's
//! evaluator runs a model's call with, and a recording that reproduces
//! must be what the reference would have recorded.
//!
//! Errors the reference raises outside an API's own `call` (an unknown
//! API, a parameter the API does not take, a value that does not convert,
//! a missing argument) leave no result object there; here they are given
//! in the shape the APIs use for their own exceptions
//! (`{"api_name", "input": null, "output": null, "exception"}`, with the
//! exception as `str(e)` gives it), so that `fill` records them readably
//! and `verify` compares them like any other result. Their `input` is
//! null because no API received anything: a replay of such a line has no
//! recorded input to run with, so it converts `param_dict` again and
//! raises the same error (one fill is a fixed point), and once the line is
//! corrected the call runs as corrected.

use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::apis::tool_search::{self, Embeddings, Lexical, Retriever};
use super::apis::{self, api, Api};
use super::scenarios::dialogue::is_expectation;
use super::state::{State, Unreproducible};
use crate::dialogue::{GoldCall, Request};
use crate::sim::pyargs::{bind, py_eq, type_name};
use crate::sim::{Databases, Reply};
use crate::suite::{Execution, NotChecked, Note, ParamType, RetrieverKind, WorldOptions};

/// The arguments a call ran with and its result object.
type Ran = (Map<String, Value>, Value);
/// The arguments of a call that raised before its API ran, and the
/// exception.
type Raised = (Map<String, Value>, String);

/// One dialogue's world.
#[derive(Debug, Clone)]
pub struct ApiBankWorld {
    state: State,
}

impl ApiBankWorld {
    /// A dialogue's world: fresh databases, the run's retriever.
    pub fn new(databases: &Databases, options: &WorldOptions) -> Result<Self, String> {
        let mut state = State::new(databases);
        let retriever: Arc<dyn Retriever> = match (options.retriever, &options.embedder) {
            (RetrieverKind::Lexical, _) => Arc::new(Lexical),
            (RetrieverKind::Embeddings, Some(embedder)) => {
                Arc::new(Embeddings::new(Arc::clone(embedder)))
            }
            (RetrieverKind::Embeddings, None) => {
                return Err("the embeddings retriever needs an embeddings endpoint".into())
            }
        };
        state.set_retriever(retriever);
        state.set_tool_descriptions(options.tool_descriptions);
        if let Some(seed) = options.draw_seed {
            state.seed_draws(seed);
        }
        Ok(ApiBankWorld { state })
    }

    /// The dialogue's state as it stands (for `fill --seed`).
    pub fn state_mut(&mut self) -> &mut State {
        &mut self.state
    }

    /// The arguments the call ran with and its result object.
    fn run(
        &mut self,
        api_name: &str,
        parameters: Map<String, Value>,
        recorded_input: Option<&Map<String, Value>>,
    ) -> (Map<String, Value>, Value) {
        match self.call(api_name, parameters, recorded_input) {
            Ok(ran) => ran,
            Err((arguments, exception)) => raised(api_name, arguments, exception),
        }
    }

    /// Run a predicted call as the reference's evaluator does: through
    /// `ToolManager.api_call`, from whatever state the world is in. The
    /// API's result object, or the exception `api_call` raised before the
    /// API answered (an unknown API or parameter, a value that does not
    /// convert, a missing argument), which the evaluator counts as a wrong
    /// call whatever the gold call recorded.
    pub fn call_predicted(
        &mut self,
        api_name: &str,
        parameters: Map<String, Value>,
    ) -> Result<Value, String> {
        self.state.replaying(None);
        self.call(api_name, parameters, None)
            .map(|(_, result)| result)
            .map_err(|(_, exception)| exception)
    }

    /// The call, or the arguments and the exception of a call that raised
    /// before its API ran.
    fn call(
        &mut self,
        api_name: &str,
        parameters: Map<String, Value>,
        recorded_input: Option<&Map<String, Value>>,
    ) -> Result<Ran, Raised> {
        let Some(api) = api(api_name) else {
            return Err((parameters, "invalid tool name.".into()));
        };
        let arguments = match recorded_input {
            Some(input) => input.clone(),
            None => match convert(api, &parameters) {
                Ok(arguments) => arguments,
                Err(e) => return Err((parameters, e)),
            },
        };
        let names = |required: bool| -> Vec<&str> {
            api.spec
                .parameters
                .iter()
                .filter(|p| p.required == required)
                .map(|p| p.name)
                .collect()
        };
        match bind(api_name, &arguments, &names(true), &names(false)) {
            Ok(args) => {
                let result = (api.call)(&mut self.state, args);
                Ok((arguments, result))
            }
            Err(e) => Err((arguments, e)),
        }
    }
}

impl crate::suite::World for ApiBankWorld {
    fn execute(
        &mut self,
        api_name: &str,
        parameters: Map<String, Value>,
        recorded: Option<&GoldCall>,
    ) -> Execution {
        // An expectation (a level-3 scenario's "runs without raising")
        // records no result to replay: the call runs as a prediction, and
        // whether it raises is checked whatever it draws.
        let expectation = recorded.is_some_and(|call| is_expectation(&call.response));
        // A recording whose input is not what the line's arguments give
        // was made before the line was edited: it says nothing about the
        // line as it stands, which runs as if nothing were recorded.
        let recorded = recorded
            .map(|call| &call.response)
            .filter(|result| result.is_object() && !expectation)
            .filter(|result| records_the_line(api_name, &parameters, result));
        self.state.replaying(recorded.cloned());
        let recorded_input = recorded
            .and_then(|result| result.get("input"))
            .and_then(Value::as_object);
        let (arguments, result) = self.run(api_name, parameters, recorded_input);
        let exception = result
            .get("exception")
            .and_then(Value::as_str)
            .map(str::to_string);
        let request = Request {
            api_name: api_name.to_string(),
            parameters: arguments,
        };
        let (mut not_checked, mut note) = marks(&self.state);
        if note.is_none() && recorded.is_none() && api_name == tool_search::API.spec.name {
            note = found(&result);
        }
        if expectation && not_checked == Some(NotChecked::Random) {
            not_checked = None;
        }
        if not_checked.is_none() {
            not_checked = rests_on_a_draw(&self.state, &result, recorded);
        }
        let mut execution = Execution::new(request, Reply::Json(result), exception);
        (execution.not_checked, execution.note) = (not_checked, note);
        execution
    }

    fn boxed_clone(&self) -> Box<dyn crate::suite::World> {
        Box::new(self.clone())
    }

    fn databases(&self) -> Databases {
        self.state.databases()
    }
}

/// Whether a recorded result's `input` is what the line's `param_dict`
/// gives: the same names, each value the one written, its conversion
/// (`"2"` recorded as `2`) or, for text, the Python literal it spells
/// (a list written `"['a', 'b']"` recorded as the list, as the reference's
/// recordings hold it). A result with no input object (a call refused
/// before its API ran, an API that records none) and an unknown API say
/// nothing either way.
fn records_the_line(api_name: &str, parameters: &Map<String, Value>, result: &Value) -> bool {
    let (Some(input), Some(api)) = (
        result.get("input").and_then(Value::as_object),
        api(api_name),
    ) else {
        return true;
    };
    input.len() == parameters.len()
        && parameters.iter().all(|(name, written)| {
            let Some(recorded) = input.get(name) else {
                return false;
            };
            let converted = convert_value(declared_type(api, name), written).ok();
            let literal = written
                .as_str()
                .and_then(crate::json::pyliteral::parse)
                .map(|tree| tree.to_value());
            py_eq(written, recorded)
                || converted.is_some_and(|value| py_eq(&value, recorded))
                || literal.is_some_and(|value| py_eq(&value, recorded))
        })
}

/// What the call that ran last marked in the state: why its result cannot
/// be checked offline, and what it noted.
fn marks(state: &State) -> (Option<NotChecked>, Option<Note>) {
    let not_checked = state.unreproducible().map(|why| match why {
        Unreproducible::Random => NotChecked::Random,
        Unreproducible::External => NotChecked::External,
    });
    if let Some(error) = state.retriever_failure() {
        let note = Note::RetrieverFailed {
            error: error.to_string(),
        };
        return (not_checked, Some(note));
    }
    let note = state
        .retrieval()
        .filter(|retrieval| !retrieval.agrees())
        .map(|retrieval| Note::Retrieval {
            recorded: retrieval.recorded.clone(),
            retriever: match &retrieval.retriever {
                Ok(Some(pick)) => pick.clone(),
                Ok(None) => "nothing (no API scores above zero)".to_string(),
                Err(e) => format!("nothing (the retriever failed: {e})"),
            },
        });
    (not_checked, note)
}

/// The APIs a ToolSearcher answer documents (GetUserToken first when the
/// found API takes a token), when it found any.
fn found(result: &Value) -> Option<Note> {
    let tools: Vec<String> = match result.get("output")? {
        Value::Array(entries) => entries.iter().collect(),
        entry => vec![entry],
    }
    .into_iter()
    .filter_map(|entry| entry.get("name")?.as_str().map(str::to_string))
    .collect();
    (!tools.is_empty()).then_some(Note::Found { tools })
}

/// A replayed call whose output names a value an earlier call drew from
/// unseeded randomness (an appointment id, a token) ran with the value the
/// recording drew, so it is compared: a result that differs is shown as a
/// difference, and one that agrees is listed as not checked, `random`,
/// since it agrees only given a draw that cannot be reproduced.
fn rests_on_a_draw(state: &State, result: &Value, recorded: Option<&Value>) -> Option<NotChecked> {
    let recorded = recorded?;
    let output = result.get("output")?;
    let names_a_draw = state.drawn().iter().any(|drawn| mentions(output, drawn));
    (names_a_draw && py_eq(result, recorded)).then_some(NotChecked::Random)
}

/// Whether `value` holds `text` as a string or as an object's key,
/// anywhere inside.
fn mentions(value: &Value, text: &str) -> bool {
    match value {
        Value::String(s) => s == text,
        Value::Array(items) => items.iter().any(|item| mentions(item, text)),
        Value::Object(map) => map
            .iter()
            .any(|(key, item)| key == text || mentions(item, text)),
        _ => false,
    }
}

/// The result of a call that raised before its API ran: the arguments it
/// was given, and a result whose `input` is null (the API received
/// nothing; see the module's doc).
fn raised(
    api_name: &str,
    arguments: Map<String, Value>,
    exception: String,
) -> (Map<String, Value>, Value) {
    let result = apis::result(api_name, Value::Null, Err(exception));
    (arguments, result)
}

/// `ToolManager.api_call`'s conversion of the arguments as the model wrote
/// them: each must be a parameter of the API (the dialogues' names, see
/// the catalog), and is converted by its declared type: `int` and `float`
/// from text that holds one (other values as Python's `int()` and
/// `float()` take them), `bool` true for the text `True` only, `str` and
/// lists as given.
fn convert(api: &Api, parameters: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let mut converted = Map::new();
    for (name, value) in parameters {
        if api.spec.parameter(name).is_none() {
            return Err(format!("invalid parameter name. parameter: {name}"));
        }
        converted.insert(
            name.clone(),
            convert_value(declared_type(api, name), value)?,
        );
    }
    Ok(converted)
}

/// The type name the reference declares for parameter `name` of `api`,
/// or the one that matches the catalog's type where the reference names
/// the parameter otherwise.
pub(super) fn declared_type(api: &Api, name: &str) -> &'static str {
    let declared = api
        .reference
        .input_parameters
        .iter()
        .find(|(known, _, _)| *known == name)
        .map(|(_, ty, _)| *ty);
    match (declared, api.spec.parameter(name)) {
        (Some(ty), _) => ty,
        (None, Some(spec)) => python_type(spec.ty),
        (None, None) => "str",
    }
}

/// The reference's type name for a parameter it does not declare under
/// the dialogues' name.
fn python_type(ty: ParamType) -> &'static str {
    match ty {
        ParamType::String => "str",
        ParamType::Integer => "int",
        ParamType::Number => "float",
        ParamType::Boolean => "bool",
        ParamType::Array(_) => "list",
        ParamType::Object => "dict",
    }
}

fn convert_value(declared: &str, value: &Value) -> Result<Value, String> {
    match declared {
        "int" => {
            if let Value::String(text) = value {
                if !is_digits(text) {
                    return Err(format!("invalid parameter type. parameter: {text}"));
                }
            }
            int(value)
        }
        "float" => {
            if let Value::String(text) = value {
                if !is_digits(&text.replacen('.', "", 1)) {
                    return Err("invalid parameter type.".into());
                }
            }
            float(value)
        }
        "str" | "list(str)" | "list" => Ok(value.clone()),
        "bool" => Ok(Value::Bool(value.as_str() == Some("True"))),
        _ => Err("invalid parameter type.".into()),
    }
}

/// `text.isdigit()` for the digits the dialogues write (ASCII; Python
/// also counts other scripts' digits, which no dialogue uses).
fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Python's `int(value)` (text already checked to be digits).
fn int(value: &Value) -> Result<Value, String> {
    match value {
        Value::String(text) => Ok(text
            .parse::<u64>()
            .map(Value::from)
            // Beyond 64 bits Python keeps every digit; a float is the
            // nearest JSON can carry here.
            .unwrap_or_else(|_| float_value(text.parse().unwrap_or_default()))),
        Value::Number(n) if !n.is_f64() => Ok(value.clone()),
        Value::Number(n) => Ok(Value::from(n.as_f64().unwrap_or(0.0).trunc() as i64)),
        Value::Bool(b) => Ok(Value::from(i64::from(*b))),
        other => Err(format!(
            "int() argument must be a string, a bytes-like object or a real number, not '{}'",
            type_name(other)
        )),
    }
}

/// Python's `float(value)` (text already checked to hold a number).
fn float(value: &Value) -> Result<Value, String> {
    match value {
        Value::String(text) => Ok(float_value(text.parse().unwrap_or(0.0))),
        Value::Number(n) => Ok(float_value(n.as_f64().unwrap_or(0.0))),
        Value::Bool(b) => Ok(float_value(f64::from(u8::from(*b)))),
        other => Err(format!(
            "float() argument must be a string or a real number, not '{}'",
            type_name(other)
        )),
    }
}

fn float_value(x: f64) -> Value {
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::state::Retrieval;
    use super::*;
    use crate::suite::World as _;

    fn world() -> ApiBankWorld {
        let dir = tempfile::tempdir().unwrap();
        let (name, accounts) = apis::testing::accounts();
        std::fs::write(
            dir.path().join(format!("{name}.json")),
            accounts.to_string(),
        )
        .unwrap();
        std::fs::write(dir.path().join("Agenda.json"), "{}").unwrap();
        ApiBankWorld::new(
            &Databases::load_documents(dir.path()).unwrap(),
            &WorldOptions::default(),
        )
        .unwrap()
    }

    fn parameters(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn gold(api_name: &str, param_dict: Value, result: Value) -> GoldCall {
        GoldCall {
            request: Request {
                api_name: api_name.into(),
                parameters: parameters(param_dict),
            },
            response: result,
            exception: None,
            place: None,
        }
    }

    #[test]
    fn runs_the_arguments_as_written_when_nothing_is_recorded() {
        let mut world = world();
        let executed = world.execute(
            "GetUserToken",
            parameters(json!({"username": "JohnDoe", "password": "pass123"})),
            None,
        );
        assert_eq!(
            executed.response.into_value(),
            json!({"api_name": "GetUserToken", "input": {"username": "JohnDoe", "password": "pass123"},
                   "output": {"token": "t-john"}, "exception": null})
        );
        assert_eq!(executed.exception, None);
        assert_eq!(executed.not_checked, None);
    }

    #[test]
    fn a_recorded_input_belongs_to_its_line_when_the_line_gives_it() {
        // The line writes the list as text and numbers as text; the
        // recording holds what the reference's API received.
        let line = parameters(json!({"token": "t", "attendees": "['Ann', 'Bo']", "n": "2"}));
        let result = |input: Value| json!({"input": input});
        assert!(records_the_line(
            "AddMeeting",
            &parameters(json!({"token": "t", "attendees": "['Ann', 'Bo']"})),
            &result(json!({"token": "t", "attendees": ["Ann", "Bo"]}))
        ));
        assert!(records_the_line(
            "BookHotel",
            &parameters(json!({"room_count": "2"})),
            &result(json!({"room_count": 2}))
        ));
        assert!(!records_the_line(
            "AddMeeting",
            &line,
            &result(json!({"token": "t"}))
        ));
        assert!(records_the_line(
            "AddMeeting",
            &line,
            &json!({"input": null})
        ));
    }

    #[test]
    fn a_line_edited_since_it_was_filled_runs_as_written() {
        let mut world = world();
        // The recording's input names another user than the line's
        // param_dict: it was recorded before the line was edited.
        let recorded = gold(
            "GetUserToken",
            json!({"username": "JohnDoe", "password": "pass123"}),
            json!({"api_name": "GetUserToken", "input": {"username": "JaneSmith", "password": "pass456"},
                   "output": {"token": "t-jane"}, "exception": null}),
        );
        let executed = world.execute(
            "GetUserToken",
            recorded.request.parameters.clone(),
            Some(&recorded),
        );
        assert_eq!(executed.request.parameters["username"], "JohnDoe");
        assert_eq!(
            executed.response.into_value()["output"],
            json!({"token": "t-john"})
        );
    }

    #[test]
    fn errors_before_the_api_runs_read_as_the_reference_raises_them() {
        let mut world = world();
        let exception = |world: &mut ApiBankWorld, api_name: &str, params: Value| {
            world
                .execute(api_name, parameters(params), None)
                .exception
                .unwrap()
        };
        assert_eq!(
            exception(&mut world, "AddSchedule", json!({"a": "1"})),
            "invalid tool name."
        );
        assert_eq!(
            exception(&mut world, "GetUserToken", json!({"user": "JohnDoe"})),
            "invalid parameter name. parameter: user"
        );
        assert_eq!(
            exception(&mut world, "GetUserToken", json!({"username": "JohnDoe"})),
            "GetUserToken.call() missing 1 required positional argument: 'password'"
        );
        let executed = world.execute("AddSchedule", parameters(json!({"a": "1"})), None);
        assert_eq!(
            executed.response.into_value(),
            json!({"api_name": "AddSchedule", "input": null, "output": null,
                   "exception": "invalid tool name."})
        );
    }

    #[test]
    fn values_convert_as_tool_manager_converts_them() {
        assert_eq!(convert_value("int", &json!("12")).unwrap(), json!(12));
        assert_eq!(
            convert_value("int", &json!("1.5")).unwrap_err(),
            "invalid parameter type. parameter: 1.5"
        );
        assert_eq!(convert_value("int", &json!(2.7)).unwrap(), json!(2));
        assert_eq!(
            convert_value("int", &Value::Null).unwrap_err(),
            "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"
        );
        assert_eq!(convert_value("float", &json!("1.5")).unwrap(), json!(1.5));
        assert_eq!(convert_value("float", &json!("15")).unwrap(), json!(15.0));
        assert_eq!(
            convert_value("float", &json!("1.5.1")).unwrap_err(),
            "invalid parameter type."
        );
        assert_eq!(convert_value("bool", &json!("True")).unwrap(), json!(true));
        assert_eq!(convert_value("bool", &json!(true)).unwrap(), json!(false));
        // A list written as text stays text, as the reference leaves it.
        assert_eq!(
            convert_value("list(str)", &json!("['a', 'b']")).unwrap(),
            json!("['a', 'b']")
        );
        assert_eq!(
            convert_value("dict", &json!({})).unwrap_err(),
            "invalid parameter type."
        );
    }

    #[test]
    fn the_embeddings_retriever_needs_an_endpoint() {
        let options = WorldOptions {
            retriever: RetrieverKind::Embeddings,
            ..WorldOptions::default()
        };
        let err = ApiBankWorld::new(&Databases::default(), &options).unwrap_err();
        assert!(err.contains("embeddings endpoint"), "{err}");
    }

    #[test]
    fn what_an_api_marks_becomes_the_execution_s_reason_and_note() {
        let mut world = world();
        world.state.replaying(None);
        assert_eq!(marks(&world.state), (None, None));
        world.state.mark(Unreproducible::External);
        world.state.set_retrieval(Retrieval {
            recorded: "AddAgenda".into(),
            retriever: Ok(Some("AddAlarm".into())),
        });
        assert_eq!(
            marks(&world.state),
            (
                Some(NotChecked::External),
                Some(Note::Retrieval {
                    recorded: "AddAgenda".into(),
                    retriever: "AddAlarm".into()
                })
            )
        );
        // A retriever that agrees with the recording notes nothing.
        world.state.set_retrieval(Retrieval {
            recorded: "AddAgenda".into(),
            retriever: Ok(Some("AddAgenda".into())),
        });
        assert_eq!(marks(&world.state).1, None);
        world.state.mark(Unreproducible::Random);
        assert_eq!(marks(&world.state).0, Some(NotChecked::Random));
        // A new call starts unmarked.
        let executed = world.execute("CheckToken", parameters(json!({"token": "t-john"})), None);
        assert_eq!((executed.not_checked, executed.note), (None, None));
    }

    #[test]
    fn a_call_naming_an_earlier_draw_is_compared_and_unchecked_only_when_it_agrees() {
        let mut world = world();
        world.state.replaying(Some(json!({})));
        let drawn = world
            .state
            .unseeded(|_| Some("34208254".into()), |_| unreachable!());
        assert_eq!(drawn, "34208254");
        let result = json!({"output": {"34208254": {"patient_name": "Ann"}}, "exception": null});
        assert_eq!(
            rests_on_a_draw(&world.state, &result, Some(&result)),
            Some(NotChecked::Random)
        );
        // A recording that differs beyond the id is a difference to show.
        let other = json!({"output": {"34208254": {"patient_name": "Bob"}}, "exception": null});
        assert_eq!(rests_on_a_draw(&world.state, &result, Some(&other)), None);
        // A result that does not name the draw is compared as usual.
        let plain = json!({"output": {"1": {"patient_name": "Ann"}}, "exception": null});
        assert_eq!(rests_on_a_draw(&world.state, &plain, Some(&plain)), None);
        // Nothing recorded (a prediction): nothing to say.
        assert_eq!(rests_on_a_draw(&world.state, &result, None), None);
    }
}
