use crate::lint::document::TasksFile;
use crate::lint::registry::{Check, FileInput};
use crate::lint::Diagnostic;

crate::declare_rule! {
    /// Finds a task (tau2's `tasks.json`) whose reward includes the
    /// database (`DB` in `reward_basis`, or no basis: tau2's default is
    /// DB and COMMUNICATE) while its gold leaves the database as it was
    /// because a gold write raises. Reported at each write that raised.
    ///
    /// ## Why
    /// tau2 swallows a gold action's raise and takes the hash of what is
    /// left: the "expected" state is then the initial one, so an agent
    /// that does what the user asks fails, and one that does nothing
    /// passes.
    ///
    /// ## Example
    /// A task whose only write is an exchange paid by a gift card whose
    /// balance cannot cover the difference: the write raises, and the
    /// gold's final state is the initial state.
    name: "db-unchanged-by-raise",
    severity: Error,
    summary: "a task graded on the database has a gold that changes nothing because a write raises",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(file) = TasksFile::of(input.document) else {
        return;
    };
    for task in &file.facts.tasks {
        if !task.db_reward || task.changes_state {
            continue;
        }
        for (i, action) in task.actions.iter().enumerate() {
            let (true, Some(exception)) = (action.write, &action.exception) else {
                continue;
            };
            out.push(
                Diagnostic::new(
                    NAME,
                    format!(
                        "task {}: the write `{}` raises ({exception}), so the gold leaves the database unchanged and the DB reward expects nothing to change",
                        task.id, action.name
                    ),
                )
                .task(task.position, &task.id)
                .call(task.position, i)
                .at(TasksFile::name_anchor(task.position, i))
                .help("fix the write's arguments so that it succeeds, or take DB out of the reward basis"),
            );
        }
    }
}
