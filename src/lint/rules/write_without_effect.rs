use crate::lint::document::TasksFile;
use crate::lint::registry::{Check, FileInput};
use crate::lint::Diagnostic;

crate::declare_rule! {
    /// Finds a write among a task's gold actions (tau2's `tasks.json`)
    /// that leaves no mark on the final state: the database's hash is the
    /// same after it as before it, or a later gold write brings the state
    /// back to what it was before it. A write that raises is left to
    /// `verify` (and to `db-unchanged-by-raise`).
    ///
    /// ## Why
    /// tau2 grades the database by its hash: an agent that skips such a
    /// write scores the same as one that makes it, so the action tests
    /// nothing, and it usually means the gold is not what the author
    /// meant (an address changed to itself, a change made and undone).
    ///
    /// ## Example
    /// ```json
    /// {"name": "modify_user_address", "arguments": {"user_id": "ann_1", "address1": "1 Elm St", ...}}
    /// ```
    /// when `1 Elm St` is already the user's address.
    name: "write-without-effect",
    severity: Warning,
    summary: "a task's gold write leaves the final database as it was",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(file) = TasksFile::of(input.document) else {
        return;
    };
    for task in &file.facts.tasks {
        let writes: Vec<(usize, &(String, String))> = task
            .actions
            .iter()
            .enumerate()
            .filter(|(_, a)| a.exception.is_none())
            .filter_map(|(i, a)| a.states.as_ref().map(|s| (i, s)))
            .collect();
        for (k, &(i, (before, after))) in writes.iter().enumerate() {
            let action = &task.actions[i];
            let why = if before == after {
                "the database is the same after it".to_string()
            } else if let Some((j, _)) = writes[k + 1..]
                .iter()
                .find(|(_, (_, later))| later == before)
            {
                format!("action {j} puts the database back as it was before it")
            } else {
                continue;
            };
            out.push(
                Diagnostic::new(
                    NAME,
                    format!(
                        "task {}: the write `{}` has no effect: {why}",
                        task.id, action.name
                    ),
                )
                .task(task.position, &task.id)
                .call(task.position, i)
                .at(TasksFile::name_anchor(task.position, i))
                .help(
                    "remove the write from the gold, or make it change what the scenario asks for",
                ),
            );
        }
    }
}
