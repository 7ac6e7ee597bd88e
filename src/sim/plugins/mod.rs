//! The seven plugins. Each file holds its tools' specs, behaviour and
//! comparators, and exports them as `TOOLS`.

use std::sync::OnceLock;

use super::catalog::{Plugin, ToolSpec};

pub mod account;
pub mod alarm;
pub mod calendar;
pub mod email;
pub mod message;
pub mod reminder;
pub mod weather;

/// Every tool, plugin by plugin.
pub fn all_tools() -> &'static [&'static ToolSpec] {
    static ALL: OnceLock<Vec<&'static ToolSpec>> = OnceLock::new();
    ALL.get_or_init(|| {
        [
            account::TOOLS,
            alarm::TOOLS,
            calendar::TOOLS,
            email::TOOLS,
            message::TOOLS,
            reminder::TOOLS,
            weather::TOOLS,
        ]
        .concat()
    })
}

pub fn plugin_description(plugin: Plugin) -> &'static str {
    match plugin {
        Plugin::AccountTools => account::DESCRIPTION,
        Plugin::Alarm => alarm::DESCRIPTION,
        Plugin::Calendar => calendar::DESCRIPTION,
        Plugin::Email => email::DESCRIPTION,
        Plugin::Messages => message::DESCRIPTION,
        Plugin::Reminder => reminder::DESCRIPTION,
        Plugin::Weather => weather::DESCRIPTION,
    }
}
