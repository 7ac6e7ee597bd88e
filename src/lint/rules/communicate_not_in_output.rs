use crate::lint::document::TasksFile;
use crate::lint::registry::{Check, FileInput};
use crate::lint::{Anchor, Diagnostic};

crate::declare_rule! {
    /// Points out a `communicate_info` item of a task (tau2's
    /// `tasks.json`) that no gold action's output holds (compared as tau2
    /// grades it: lowercased, commas left out). The agent must then
    /// compute it (a sum, a count) or read it with a lookup the gold
    /// leaves out; a warning, since that may be the point of the task.
    ///
    /// ## Why
    /// tau2 checks that the agent says each item word for word. An item
    /// no tool hands out is right only if the author computed it the way
    /// the agent will, and written the way the agent will write it
    /// ("1,286.5" against "1286.50"): worth a second look.
    ///
    /// ## Example
    /// `"communicate_info": ["10"]` where 10 is the number of t-shirt
    /// variants the agent must count in a `get_product_details` output.
    name: "communicate-not-in-output",
    severity: Warning,
    summary: "an item the agent must say is in no gold output",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(file) = TasksFile::of(input.document) else {
        return;
    };
    for task in &file.facts.tasks {
        for (i, item) in task.communicate.iter().enumerate() {
            if item.in_output {
                continue;
            }
            let pointer = format!(
                "/{}/evaluation_criteria/communicate_info/{i}",
                task.position
            );
            out.push(
                Diagnostic::new(
                    NAME,
                    format!(
                        "task {}: communicate_info {:?} is in no gold output: the agent must look it up or compute it",
                        task.id, item.text
                    ),
                )
                .task(task.position, &task.id)
                .at(Anchor::value(pointer))
                .help("check the value and how it is written against what the agent will compute"),
            );
        }
    }
}
