//! The seven plugins. Each file holds its tools' specs, behaviour and
//! comparators, and exports them as `TOOLS` with its `DESCRIPTION`.

use crate::sim::RunFn;
use crate::suite::catalog::{Group, ToolSpec};

/// A ToolTalk tool: its catalog entry and how it runs in the shared
/// simulator (`sim::ToolCtx`).
#[derive(Debug)]
pub struct Tool {
    pub spec: ToolSpec,
    pub run: RunFn,
}

pub mod account;
pub mod alarm;
pub mod calendar;
pub mod email;
pub mod message;
pub mod reminder;
#[cfg(test)]
pub(crate) mod testing;
pub mod weather;

/// The plugins in catalog order, each with its tools.
pub fn plugins() -> [(Group, &'static [&'static Tool]); 7] {
    let group = |name, description| Group { name, description };
    [
        (group("AccountTools", account::DESCRIPTION), account::TOOLS),
        (group("Alarm", alarm::DESCRIPTION), alarm::TOOLS),
        (group("Calendar", calendar::DESCRIPTION), calendar::TOOLS),
        (group("Email", email::DESCRIPTION), email::TOOLS),
        (group("Messages", message::DESCRIPTION), message::TOOLS),
        (group("Reminder", reminder::DESCRIPTION), reminder::TOOLS),
        (group("Weather", weather::DESCRIPTION), weather::TOOLS),
    ]
}
