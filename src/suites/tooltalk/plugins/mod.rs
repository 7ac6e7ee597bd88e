//! The seven plugins. Each file holds its tools' specs, behaviour and
//! comparators, and exports them as `TOOLS` with its `DESCRIPTION`.

use crate::suite::catalog::{Group, ToolSpec};

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
pub fn plugins() -> [(Group, &'static [&'static ToolSpec]); 7] {
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
