//! AddScene: defines a smart-home scene, a named list of devices.
//!
//! Database `Scenes`: `{scene name: [{"name", "description"}, ...]}`,
//! keyed by the name stripped and lower-cased. The devices are tidied
//! first (see [`tidy_devices`]), and the tidied list is both stored and
//! reported as the call's input, as the reference reports it.

use serde_json::{Map, Value};

use super::super::catalog::{composed, p, spec, text};
use super::super::state::{Key, Source, State};
use super::home::{key_name, tidied_scene, tidy_devices};
use super::{result, Api, Reference};
use crate::sim::pyargs::{py_eq, Args};
use crate::suite::{ParamSpec, ParamType};

const DATABASE: Source = Source::Shared("Scenes");

/// The scene APIs' parameters as the dialogues pass them.
pub(super) const SCENE: &[ParamSpec] = &[
    text("name"),
    ParamSpec {
        // A device's description is the assistant's wording ("Smart light
        // in the kitchen"); its name is what the user asked for.
        fields: &[text("name"), composed("description")],
        ..p("devices", ParamType::Array(&ParamType::Object))
    },
];

pub static API: Api = Api {
    spec: spec(
        "AddScene",
        "Defines a smart-home scene from a list of devices.",
        SCENE,
        true,
    )
    .reading("Scenes"),
    reference: Reference {
        description: "This API adds a scene of smart home system, given the scene name and a list of smart devices",
        input_parameters: &[
            ("name", "str", "The name of the scene."),
            (
                "devices",
                "list",
                "The list of smart devices, containing the name and description. Format be like [{\"name\": \"light\", \"description\": \"Smart light in the kitchen\"}, {\"name\": \"oven\", \"description\": \"Smart oven in the kitchen\"}, {\"name\": \"range hood\", \"description\": \"Smart range hood in the kitchen\"}]",
            ),
        ],
        output_parameters: &[("status", "str", "Whether succeed.")],
    },
    call,
    correct,
    check_removes: &[],
};

/// The input `{"name", "devices"}` as the reference reports it: the name
/// as given, the devices as tidying left them.
pub(super) fn scene_input(name: &Value, devices: Value) -> Value {
    let mut input = Map::new();
    input.insert("name".into(), name.clone());
    input.insert("devices".into(), devices);
    Value::Object(input)
}

fn call(state: &mut State, args: Args<'_>) -> Value {
    let name = args.value("name");
    let mut devices = args.value("devices").clone();
    let outcome = add(state, name, &mut devices).map(Value::from);
    result("AddScene", scene_input(name, devices), outcome)
}

fn add(state: &mut State, name: &Value, devices: &mut Value) -> Result<&'static str, String> {
    let name = key_name(name)?;
    if name.is_empty() {
        return Err("Scene name cannot be empty.".into());
    }
    tidy_devices(devices)?;
    let scenes = state.dict_mut(DATABASE);
    if scenes.contains(&name) {
        return Err("Scene name already exists.".into());
    }
    scenes.insert(Key::Text(name), devices.clone());
    Ok("success")
}

/// Same tidied name and devices, an output where the gold call had one
/// (any output: the reference does not compare them), same exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let (Some(a), Some(b)) = (tidied_scene(response), tidied_scene(groundtruth)) else {
        return false;
    };
    let (Some(output), Some(gold_output)) = (response.get("output"), groundtruth.get("output"))
    else {
        return false;
    };
    a.0 == b.0
        && py_eq(&Value::Array(a.1), &Value::Array(b.1))
        // Refused only where the gold call failed and this one answered.
        && (!gold_output.is_null() || output.is_null())
        && match (response.get("exception"), groundtruth.get("exception")) {
            (Some(x), Some(y)) => py_eq(x, y),
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn scenes() -> (&'static str, Value) {
        (
            "Scenes",
            json!({"cooking time": [{"name": "oven", "description": "Smart oven"}]}),
        )
    }

    #[test]
    fn stores_and_reports_the_tidied_devices() {
        let mut state = state(&[scenes()]);
        let out = call(
            &API,
            &mut state,
            json!({"name": " Party Time ", "devices": [
                {"name": "Speaker ", "description": " Loud"}, {"name": "Light", "description": "Disco"}]}),
        );
        let tidied = json!([{"name": "light", "description": "Disco"}, {"name": "speaker", "description": "Loud"}]);
        assert_eq!(
            out,
            json!({"api_name": "AddScene", "input": {"name": " Party Time ", "devices": tidied},
                   "output": "success", "exception": null})
        );
        assert_eq!(state.dict_mut(DATABASE).get("party time"), Some(&tidied));
        assert!(correct(&out, &out));
    }

    #[test]
    fn empty_names_duplicates_and_existing_scenes_raise() {
        let mut state = state(&[scenes()]);
        let device = json!([{"name": "oven", "description": "x"}]);
        let out = call(&API, &mut state, json!({"name": "  ", "devices": device}));
        assert_eq!(out["exception"], "Scene name cannot be empty.");
        let out = call(
            &API,
            &mut state,
            json!({"name": "Cooking Time", "devices": device}),
        );
        assert_eq!(out["exception"], "Scene name already exists.");
        let out = call(
            &API,
            &mut state,
            json!({"name": "x", "devices": [{"name": "a", "description": ""}, {"name": "A ", "description": ""}]}),
        );
        assert_eq!(out["exception"], "Device name cannot be duplicated.");
        assert_eq!(state.dict_mut(DATABASE).len(), 1);
    }

    #[test]
    fn the_check_ignores_case_order_and_which_output() {
        let gold = json!({"api_name": "AddScene", "input": {"name": "Party", "devices": [
            {"name": "a", "description": "x"}, {"name": "b", "description": "y"}]}, "output": "success", "exception": null});
        let mut other = gold.clone();
        other["input"] = json!({"name": " party", "devices": [
            {"name": "B", "description": "y "}, {"name": "A", "description": "x"}]});
        other["output"] = json!("done");
        assert!(correct(&other, &gold));
        let mut failed_gold = gold.clone();
        failed_gold["output"] = Value::Null;
        assert!(!correct(&other, &failed_gold));
    }
}
