//! Databases that no API writes (Symptom, Stock, Wiki, ImageCaptioning,
//! ...), read in place from the loaded JSON rather than converted per
//! dialogue: Wiki and ImageCaptioning are large.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::super::state::State;

/// The loaded database `name`; an empty dict when there is no such file,
/// as the reference's `init_database=None` gives.
pub fn database<'s>(state: &'s State, name: &str) -> &'s Value {
    static EMPTY: OnceLock<Value> = OnceLock::new();
    match state.document(name) {
        Some(document) => document.as_ref(),
        None => EMPTY.get_or_init(|| Value::Object(Map::new())),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::state;
    use super::*;
    use serde_json::json;

    #[test]
    fn a_missing_database_reads_as_an_empty_dict() {
        let state = state(&[("Stock", json!({"AAPL": {}}))]);
        assert_eq!(database(&state, "Stock"), &json!({"AAPL": {}}));
        assert_eq!(database(&state, "Wiki"), &json!({}));
    }
}
