use std::collections::HashMap;

use crate::lint::document::TasksFile;
use crate::lint::registry::{Check, FileInput};
use crate::lint::Diagnostic;

crate::declare_rule! {
    /// Points out tasks (tau2's `tasks.json`) whose user scenarios differ
    /// but whose gold actions are the same, and not empty, as an earlier
    /// task's. Often on purpose (the same goal reached by users who speak
    /// differently), so it is a warning, for information.
    ///
    /// ## Why
    /// When the scenarios ask for different things, one gold is wrong for
    /// one of them; when they ask for the same, the tasks test the same
    /// state twice. Either way the file's author should know.
    ///
    /// ## Example
    /// Task "3" wants a refund to the card and task "4" a refund to a
    /// gift card, and both golds are `return_delivered_order_items` with
    /// the same `payment_method_id`.
    name: "shared-gold",
    severity: Warning,
    summary: "tasks with different scenarios have the same gold actions",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(file) = TasksFile::of(input.document) else {
        return;
    };
    let mut first: HashMap<&str, (&str, &str)> = HashMap::new();
    for task in &file.facts.tasks {
        if task.gold.is_empty() {
            continue;
        }
        match first.get(task.gold.as_str()) {
            // The same scenario too is a duplicate-task.
            Some((earlier, scenario)) if *scenario != task.scenario => out.push(
                Diagnostic::new(
                    NAME,
                    format!(
                        "task {} has the same gold actions as task {earlier}, for a different user scenario",
                        task.id
                    ),
                )
                .task(task.position, &task.id)
                .at(TasksFile::id_anchor(task.position))
                .help("check that one gold suits both scenarios"),
            ),
            Some(_) => {}
            None => {
                first.insert(&task.gold, (&task.id, &task.scenario));
            }
        }
    }
}
