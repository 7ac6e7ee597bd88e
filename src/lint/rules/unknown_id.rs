use crate::lint::document::TasksFile;
use crate::lint::registry::{Check, FileInput};
use crate::lint::Diagnostic;

crate::declare_rule! {
    /// Finds gold actions of a task (tau2's `tasks.json`) whose id
    /// argument names no record of the domain's database (`db.json`
    /// beside the file, or `--databases`): no user, order, product, item,
    /// reservation, flight or payment method has that id. An id the
    /// simulated user is told to give (it appears in the task's
    /// `user_scenario`, as "provide 9502126 first") is the task's
    /// script, not a defect, and is left alone.
    ///
    /// ## Why
    /// Such an action cannot succeed: the lookup raises, and tau2's
    /// evaluator swallows the raise. The gold then shows a call no agent
    /// could make (nobody gave it the id), and a write on a missing record
    /// leaves the state the gold's hash is taken from unchanged.
    ///
    /// ## Example
    /// ```json
    /// {"name": "get_product_details", "arguments": {"product_id": "1234567890"}}
    /// ```
    /// when `db.json` has no product `1234567890` and the scenario never
    /// names it.
    name: "unknown-id",
    severity: Error,
    summary: "a task's gold action names a record the database does not have",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(file) = TasksFile::of(input.document) else {
        return;
    };
    for task in &file.facts.tasks {
        for (a, action) in task.actions.iter().enumerate() {
            for value in &action.unknown_ids {
                out.push(
                    Diagnostic::new(
                        NAME,
                        format!(
                            "task {}: `{}` {} = {:?} names no {} of the database, and the user is not told it",
                            task.id, action.name, value.argument, value.value, value.kind
                        ),
                    )
                    .task(task.position, &task.id)
                    .call(task.position, a)
                    .argument(&value.argument)
                    .at(TasksFile::value_anchor(task.position, a, value))
                    .help(format!(
                        "use the id of a {} in db.json, or tell the user the value in the scenario if the lookup is meant to fail",
                        value.kind
                    )),
                );
            }
        }
    }
}
