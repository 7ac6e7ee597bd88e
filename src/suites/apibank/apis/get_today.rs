//! GetToday: today's date, which in API-Bank is always 2023-03-31. The
//! result's `input` is null, whatever was passed.

use serde_json::Value;

use super::super::catalog::spec;
use super::super::state::State;
use super::{result, Api, Reference};
use crate::sim::pyargs::Args;
use crate::suite::ToolSpec;

/// The date the reference answers (it does not read the clock).
const TODAY: &str = "2023-03-31";

pub static API: Api = Api {
    spec: ToolSpec {
        tells_today: true,
        ..spec("GetToday", "Tells today's date.", &[], false)
    },
    reference: Reference {
        description: "This API gets the current date.",
        input_parameters: &[],
        output_parameters: &[("date", "str", "The current date. Format: %Y-%m-%d")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(_state: &mut State, _args: Args<'_>) -> Value {
    result("GetToday", Value::Null, Ok(Value::from(TODAY)))
}

/// Some output, no exception and a null input: any date counts.
fn correct(response: &Value, _groundtruth: &Value) -> bool {
    let (Some(output), Some(exception), Some(input)) = (
        response.get("output"),
        response.get("exception"),
        response.get("input"),
    ) else {
        return false;
    };
    !output.is_null() && exception.is_null() && input.is_null()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    #[test]
    fn always_the_last_day_of_march_2023() {
        let mut state = state(&[]);
        let out = call(&API, &mut state, json!({}));
        assert_eq!(
            out,
            json!({"api_name": "GetToday", "input": null, "output": "2023-03-31", "exception": null})
        );
        assert!(correct(&out, &Value::Null));
        let mut other = out.clone();
        other["output"] = json!("2024-01-01");
        assert!(correct(&other, &out));
        other["input"] = json!({});
        assert!(!correct(&other, &out));
    }
}
