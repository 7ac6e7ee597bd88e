//! A report as JSON: the kind's own document (the keys `report --format
//! json` has always written), with each run's `evaluated` and
//! `not_evaluated` counts, and the report's sections as the table model
//! holds them.

use serde_json::{json, Value};

use super::Report;

/// `document` (an object with a `runs` array in the report's run order)
/// completed from `report`.
pub fn render(report: &Report, mut document: Value) -> Value {
    if let Some(runs) = document.get_mut("runs").and_then(Value::as_array_mut) {
        for (run, header) in runs.iter_mut().zip(&report.runs) {
            if let Some(run) = run.as_object_mut() {
                run.insert("evaluated".into(), json!(header.evaluated));
                run.insert("not_evaluated".into(), json!(header.not_evaluated));
                run.insert("unit".into(), json!(header.unit));
            }
        }
    }
    if let Some(object) = document.as_object_mut() {
        object.insert("title".into(), json!(report.title));
        object.insert("warnings".into(), json!(report.warnings));
        object.insert("sections".into(), json!(report.sections));
    }
    document
}
