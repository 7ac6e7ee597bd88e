use crate::lint::registry::{Check, FileInput};
use crate::lint::view::closest_name;
use crate::lint::Diagnostic;

crate::declare_rule! {
    /// Finds arguments that the called tool does not take. ToolTalk's
    /// `session_token` is accepted on tools that need a session, since the
    /// world passes it to them.
    ///
    /// ## Why
    /// The reference simulators bind arguments like Python keyword
    /// arguments: an unexpected one raises `TypeError`, so the recorded
    /// result cannot be what the tool returns. In a prompt it also teaches
    /// the model a parameter that does not exist.
    ///
    /// ## Example
    /// ```json
    /// {"api_name": "AddAlarm", "parameters": {"time": "07:00:00", "label": "gym"}}
    /// ```
    /// `AddAlarm` takes no `label`.
    name: "unknown-argument",
    severity: Error,
    summary: "a call passes an argument the tool does not take",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(view) = input.view else { return };
    for call in view.calls() {
        let Some(tool) = view.tool(call.api_name) else {
            continue;
        };
        let params = tool.params();
        let names: Vec<&str> = params.iter().map(|p| p.name).collect();
        for name in call.arguments.keys() {
            if names.contains(&name.as_str()) || tool.is_injected(name) {
                continue;
            }
            let mut d = Diagnostic::new(
                NAME,
                format!("`{}` takes no argument `{name}`", tool.name()),
            )
            .call(call.turn, call.call)
            .argument(name.clone())
            .at(call.argument_key_anchor(name));
            d = match closest_name(name, &names) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!("`{}` takes: {}", tool.name(), list(&names))),
            };
            out.push(d);
        }
    }
}

pub(crate) fn list(names: &[&str]) -> String {
    if names.is_empty() {
        return "no arguments".to_owned();
    }
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
