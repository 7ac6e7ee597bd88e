use crate::apibank::catalog::TOKEN_SOURCES;
use crate::lint::registry::{Check, FileInput};
use crate::lint::view::Flavor;
use crate::lint::Diagnostic;

crate::declare_rule! {
    /// Finds calls to tools that need a logged-in user made when nobody is
    /// logged in at that point. In ToolTalk a session starts with the
    /// conversation's `user.session_token` or a successful `UserLogin` or
    /// `RegisterUser`, and ends with a successful `LogoutUser` or
    /// `DeleteAccount`. In API-Bank a token-taking API needs an earlier
    /// successful `GetUserToken` (or `RegisterUser`).
    ///
    /// ## Why
    /// The simulators refuse such calls, so the recorded result cannot be
    /// right; and the dialogue teaches the model to skip the login it needs.
    ///
    /// ## Example
    /// ```text
    /// user: Delete my 7am alarm.
    /// assistant -> DeleteAlarm {"alarm_id": "..."}   (nobody has logged in)
    /// ```
    name: "auth-order",
    severity: Error,
    summary: "a tool that needs a session is called before anyone logs in",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(view) = input.view else { return };
    let mut logged_in = view.starts_logged_in;
    for call in view.calls() {
        let tool = view.tool(call.api_name);
        if let Some(tool) = tool.filter(|t| t.requires_auth() && !logged_in) {
            let how = match view.flavor {
                Flavor::ToolTalk => "nobody is logged in (no earlier UserLogin or RegisterUser)",
                Flavor::ApiBank => "no token has been obtained (no earlier GetUserToken)",
            };
            out.push(
                Diagnostic::new(
                    NAME,
                    format!("`{}` needs a logged-in user, but {how}", tool.name()),
                )
                .call(call.turn, call.call)
                .at(call.name_anchor()),
            );
        }
        if call.failed() {
            continue;
        }
        match (view.flavor, call.api_name) {
            (Flavor::ToolTalk, "UserLogin" | "RegisterUser") => logged_in = true,
            (Flavor::ToolTalk, "LogoutUser" | "DeleteAccount") => logged_in = false,
            (Flavor::ApiBank, name) if TOKEN_SOURCES.contains(&name) => {
                logged_in |= call.result.and_then(|r| r.get("token")).is_some();
            }
            _ => {}
        }
    }
}
