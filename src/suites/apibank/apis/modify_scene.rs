//! ModifyScene: replaces the devices of an existing smart-home scene.
//!
//! Database `Scenes` (see AddScene). The devices are tidied as AddScene
//! tidies them, and the tidied list is reported as the call's input.

use serde_json::Value;

use super::super::catalog::spec;
use super::super::state::{Key, Source, State};
use super::add_scene::{scene_input, SCENE};
use super::home::{key_name, tidied_scene, tidy_devices};
use super::{result, Api, Reference};
use crate::sim::pyargs::{py_eq, Args};

const DATABASE: Source = Source::Shared("Scenes");

pub static API: Api = Api {
    spec: spec(
        "ModifyScene",
        "Replaces the devices of a smart-home scene.",
        SCENE,
        true,
    )
    .reading("Scenes"),
    reference: Reference {
        description: "This API modifies a scene of smart home system, given the scene name and a list of smart devices",
        input_parameters: &[
            ("name", "str", "The name of the scene."),
            (
                "devices",
                "list",
                "The list of smart devices, containing the name and description.",
            ),
        ],
        output_parameters: &[(
            "status",
            "str",
            "Whether the modification is successful.",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let name = args.value("name");
    let mut devices = args.value("devices").clone();
    let outcome = modify(state, name, &mut devices).map(Value::from);
    result("ModifyScene", scene_input(name, devices), outcome)
}

fn modify(state: &mut State, name: &Value, devices: &mut Value) -> Result<&'static str, String> {
    let name = key_name(name)?;
    if name.is_empty() {
        return Err("Scene name cannot be empty.".into());
    }
    tidy_devices(devices)?;
    let scenes = state.dict_mut(DATABASE);
    if !scenes.contains(&name) {
        return Err("The scene does not exist.".into());
    }
    scenes.insert(Key::Text(name), devices.clone());
    Ok("success")
}

/// Same tidied name and devices, same output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let (Some(a), Some(b)) = (tidied_scene(response), tidied_scene(groundtruth)) else {
        return false;
    };
    let same = |field: &str| match (response.get(field), groundtruth.get(field)) {
        (Some(x), Some(y)) => py_eq(x, y),
        _ => false,
    };
    a.0 == b.0
        && py_eq(&Value::Array(a.1), &Value::Array(b.1))
        && same("output")
        && same("exception")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn scenes() -> (&'static str, Value) {
        (
            "Scenes",
            json!({
                "cooking time": [{"name": "oven", "description": "Smart oven"}],
                "bedtime": [{"name": "light", "description": "Dim"}]
            }),
        )
    }

    #[test]
    fn replaces_the_devices_keeping_the_scene_in_place() {
        let mut state = state(&[scenes()]);
        let out = call(
            &API,
            &mut state,
            json!({"name": "Cooking Time", "devices": [{"name": "Hood", "description": "Fan "}, {"name": "Oven", "description": "Hot"}]}),
        );
        assert_eq!(out["output"], "success");
        let tidied =
            json!([{"name": "hood", "description": "Fan"}, {"name": "oven", "description": "Hot"}]);
        assert_eq!(out["input"]["devices"], tidied);
        assert_eq!(state.dict_mut(DATABASE).get("cooking time"), Some(&tidied));
        let first = state.dict_mut(DATABASE).keys().next().cloned();
        assert_eq!(first, Some(Key::text("cooking time")));
        assert!(correct(&out, &out));
    }

    #[test]
    fn an_unknown_scene_raises_after_the_devices_are_checked() {
        let mut state = state(&[scenes()]);
        let out = call(
            &API,
            &mut state,
            json!({"name": "Party", "devices": [{"name": "x"}]}),
        );
        assert_eq!(out["exception"], "Invalid device format.");
        let out = call(
            &API,
            &mut state,
            json!({"name": "Party", "devices": [{"name": "X", "description": "y"}]}),
        );
        assert_eq!(out["exception"], "The scene does not exist.");
        assert_eq!(
            out["input"]["devices"],
            json!([{"name": "x", "description": "y"}])
        );
        assert_eq!(state.dict_mut(DATABASE).len(), 2);
    }
}
