//! ToolTalk's comparators shared by several tools: the reference's default
//! rule, and the listing queries' rule.

use serde_json::Value;

use crate::dialogue::GoldCall;
use crate::sim::pyargs::{lookup, py_eq};
use crate::sim::table::field;
use crate::sim::Response;
use crate::suite::catalog::CallRef;

// The reference's default rule is the seam's, for any suite.
pub use crate::suite::catalog::{default_matches, gold_arguments_equal};

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
    use crate::dialogue::Request;
    use crate::suite::similarity::ExactText;
    use serde_json::json;

    fn call(params: Value, response: Value) -> GoldCall {
        GoldCall {
            request: Request {
                api_name: "T".into(),
                parameters: params.as_object().unwrap().clone(),
            },
            response,
            exception: None,
            place: None,
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
