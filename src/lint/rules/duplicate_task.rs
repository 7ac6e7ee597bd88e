use std::collections::HashMap;

use crate::lint::document::TasksFile;
use crate::lint::registry::{Check, FileInput};
use crate::lint::Diagnostic;

crate::declare_rule! {
    /// Finds a task (tau2's `tasks.json`) with the same user scenario and
    /// the same gold actions as an earlier task of the file. Keys are
    /// compared whatever their order.
    ///
    /// ## Why
    /// A copy counts the same test twice: it weighs the score towards
    /// one case and, in a split, may put the same task on both sides.
    ///
    /// ## Example
    /// Tasks "7" and "12" both tell the user "you want to cancel order
    /// #W1" and both have the gold `cancel_pending_order` of `#W1`.
    name: "duplicate-task",
    severity: Error,
    summary: "a task repeats an earlier task's scenario and gold",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(file) = TasksFile::of(input.document) else {
        return;
    };
    let mut first: HashMap<(&str, &str), &str> = HashMap::new();
    for task in &file.facts.tasks {
        let key = (task.scenario.as_str(), task.gold.as_str());
        match first.get(&key) {
            Some(earlier) => out.push(
                Diagnostic::new(
                    NAME,
                    format!(
                        "task {} has the same user scenario and gold actions as task {earlier}",
                        task.id
                    ),
                )
                .task(task.position, &task.id)
                .at(TasksFile::id_anchor(task.position))
                .help("remove the copy, or change what the user wants"),
            ),
            None => {
                first.insert(key, &task.id);
            }
        }
    }
}
