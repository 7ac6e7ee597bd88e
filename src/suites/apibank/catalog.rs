//! API-Bank's 53 APIs as its dialogues call them: names, parameters with
//! their declared types, which are required, which values have a fixed
//! format, and which need the user's token.
//!
//! Learned from `api-bank/apis/*.py` in AlibabaResearch/DAMO-ConvAI and
//! checked against the published level-1/level-2 dialogues. Where the two
//! disagree the dialogues win, because they are what gets linted: the
//! timed-switch APIs take `device_id` in every dialogue although the
//! implementation names the argument `name`. Descriptions are our own.
//!
//! Dialogues write every value as the model typed it (mostly strings): a
//! parameter's type says what the text must convert to
//! ([`ArgumentEncoding::PythonText`](crate::suite::ArgumentEncoding)).

use std::sync::OnceLock;

use crate::dialogue::GoldCall;
use crate::suite::{
    CallRef, Catalog, Group, ParamSpec, ParamType, SessionEffect, TextSimilarity, ToolSpec,
    ValueFormat,
};

/// The one group all APIs belong to.
const GROUP: &str = "API-Bank";

pub(super) const fn p(name: &'static str, ty: ParamType) -> ParamSpec {
    ParamSpec::new(name, ty, "", true)
}

pub(super) const fn text(name: &'static str) -> ParamSpec {
    p(name, ParamType::String)
}

pub(super) const fn composed(name: &'static str) -> ParamSpec {
    ParamSpec {
        free_text: true,
        ..p(name, ParamType::String)
    }
}

pub(super) const fn optional(param: ParamSpec) -> ParamSpec {
    ParamSpec {
        required: false,
        ..param
    }
}

pub(super) const fn timestamp(name: &'static str) -> ParamSpec {
    ParamSpec {
        format: ValueFormat::Timestamp,
        ..p(name, ParamType::String)
    }
}

pub(super) const fn date(name: &'static str) -> ParamSpec {
    ParamSpec {
        format: ValueFormat::Date,
        ..p(name, ParamType::String)
    }
}

/// One end of a search window the assistant chooses.
pub(super) const fn bound(param: ParamSpec) -> ParamSpec {
    ParamSpec {
        bound: true,
        ..param
    }
}

/// The user's token: only an earlier `GetUserToken` (or `RegisterUser`)
/// result can supply it.
pub(super) const TOKEN: ParamSpec = ParamSpec {
    format: ValueFormat::Token,
    ..p("token", ParamType::String)
};

/// Whether a tool takes the user's token, so somebody must have logged in first.
const fn takes_token(parameters: &[ParamSpec]) -> bool {
    let mut i = 0;
    while i < parameters.len() {
        if matches!(parameters[i].format, ValueFormat::Token) {
            return true;
        }
        i += 1;
    }
    false
}

/// A prediction matches when it raised as the gold call did and passed
/// every gold argument with an equal value.
fn same_outcome_and_arguments(
    prediction: CallRef<'_>,
    gold: &GoldCall,
    _text: &dyn TextSimilarity,
) -> bool {
    prediction.exception == gold.exception.as_deref()
        && gold
            .request
            .parameters
            .iter()
            .all(|(key, value)| prediction.parameters.get(key) == Some(value))
}

pub(super) const fn spec(
    name: &'static str,
    description: &'static str,
    parameters: &'static [ParamSpec],
    is_action: bool,
) -> ToolSpec {
    ToolSpec {
        name,
        group: GROUP,
        description,
        parameters,
        returns: &[],
        is_action,
        requires_auth: takes_token(parameters),
        session: SessionEffect::None,
        tells_today: false,
        database: None,
        matches: same_outcome_and_arguments,
    }
}

pub(super) const AGENDA: &[ParamSpec] = &[
    TOKEN,
    composed("content"),
    timestamp("time"),
    text("location"),
];

/// Looking an item up or deleting it: its content is the key the user
/// gives, not text the assistant writes.
pub(super) const AGENDA_LOOKUP: &[ParamSpec] =
    &[TOKEN, text("content"), timestamp("time"), text("location")];

pub(super) const MEETING: &[ParamSpec] = &[
    TOKEN,
    composed("meeting_topic"),
    timestamp("start_time"),
    timestamp("end_time"),
    text("location"),
    p("attendees", ParamType::Array(&ParamType::String)),
];

pub(super) const MEETING_LOOKUP: &[ParamSpec] = &[
    TOKEN,
    text("meeting_topic"),
    timestamp("start_time"),
    timestamp("end_time"),
    text("location"),
    p("attendees", ParamType::Array(&ParamType::String)),
];

pub(super) const REMINDER: &[ParamSpec] = &[TOKEN, composed("content"), timestamp("time")];

pub(super) const REMINDER_LOOKUP: &[ParamSpec] = &[TOKEN, text("content"), timestamp("time")];

pub(super) const ALARM: &[ParamSpec] = &[TOKEN, timestamp("time")];

/// All 53 APIs, sorted by name.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        Catalog::new(
            vec![Group {
                name: GROUP,
                description: "API-Bank's APIs: agenda, alarms, meetings, reminders, health, home, bank, search and more.",
            }],
            super::apis::APIS.iter().map(|api| &api.spec).collect(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_53_apis_sorted_and_unique() {
        assert_eq!(catalog().tools().len(), 53);
        for pair in catalog().tools().windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} >= {}",
                pair[0].name,
                pair[1].name
            );
        }
    }

    #[test]
    fn token_apis_are_the_personal_ones() {
        assert!(catalog().tool("AddAgenda").unwrap().requires_auth);
        assert!(catalog().tool("QueryBalance").unwrap().requires_auth);
        assert!(!catalog().tool("GetUserToken").unwrap().requires_auth);
        assert!(!catalog().tool("QueryStock").unwrap().requires_auth);
        assert!(catalog().tool("NoSuchApi").is_none());
    }

    #[test]
    fn contents_are_composed_when_added_and_keys_when_looked_up() {
        let free = |api_name: &str, param: &str| {
            catalog()
                .tool(api_name)
                .unwrap()
                .parameter(param)
                .unwrap()
                .free_text
        };
        assert!(free("AddAgenda", "content"));
        assert!(free("ModifyMeeting", "meeting_topic"));
        assert!(free("AddReminder", "content"));
        assert!(!free("QueryAgenda", "content"));
        assert!(!free("DeleteAgenda", "content"));
        assert!(!free("QueryMeeting", "meeting_topic"));
        assert!(!free("DeleteMeeting", "meeting_topic"));
        assert!(!free("QueryReminder", "content"));
        assert!(!free("DeleteReminder", "content"));
    }

    #[test]
    fn timed_switch_uses_the_dialogues_argument_name() {
        assert!(catalog()
            .tool("TimedSwitch")
            .unwrap()
            .parameter("device_id")
            .is_some());
        assert!(catalog()
            .tool("TimedSwitch")
            .unwrap()
            .parameter("name")
            .is_none());
    }
}
