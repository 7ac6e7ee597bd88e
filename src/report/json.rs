//! A report as JSON: the kind's document ([`super::runs::document`]: the
//! keys `report --format json` has always written, each run's `evaluated`
//! and `not_evaluated` counts), and the report's sections as the table
//! model holds them.

use serde_json::{json, Value};

use super::Report;

/// `document` completed from `report`.
pub fn render(report: &Report, mut document: Value) -> Value {
    if let Some(object) = document.as_object_mut() {
        object.insert("title".into(), json!(report.title));
        object.insert("warnings".into(), json!(report.warnings));
        object.insert("sections".into(), json!(report.sections));
    }
    document
}
