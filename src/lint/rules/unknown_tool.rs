use crate::lint::registry::{Check, FileInput};
use crate::lint::view::closest_name;
use crate::lint::Diagnostic;

crate::declare_rule! {
    /// Finds gold calls to tools that are not in the catalog: a hallucinated
    /// tool, or a misspelt one. ToolTalk conversations are checked against
    /// the 28 tools of the simulated world; API-Bank dialogues against
    /// API-Bank's 53 APIs.
    ///
    /// ## Why
    /// A call to a tool that does not exist cannot be executed, so `verify`
    /// cannot reproduce it and `evaluate` can never match a prediction to it:
    /// the conversation silently stops measuring anything.
    ///
    /// ## Example
    /// ```json
    /// {"request": {"api_name": "CreateAlarm", "parameters": {"time": "07:00:00"}}}
    /// ```
    /// There is no `CreateAlarm`; the tool is `AddAlarm`.
    name: "unknown-tool",
    severity: Error,
    summary: "a gold call names a tool that is not in the catalog",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(view) = input.view else { return };
    let names = view.tool_names();
    for call in view.calls() {
        if view.tool(call.api_name).is_some() {
            continue;
        }
        let mut d = Diagnostic::new(
            NAME,
            format!("`{}` is not a tool of the catalog", call.api_name),
        )
        .call(call.turn, call.call)
        .at(call.name_anchor());
        if let Some(near) = closest_name(call.api_name, &names) {
            d = d.help(format!("did you mean `{near}`?"));
        }
        out.push(d);
    }
}
