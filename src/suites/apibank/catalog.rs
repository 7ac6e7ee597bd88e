//! API-Bank's 53 APIs as its dialogues call them: names, parameters with
//! their declared types, which are required, which values have a fixed
//! format, and which need the user's token.
//!
//! Learned from `api-bank/apis/*.py` in AlibabaResearch/DAMO-ConvAI and
//! checked against the published level-1/level-2 dialogues. Where the two
//! disagree the dialogues win, because they are what gets linted: the
//! timed-switch APIs take `device_id` in every dialogue although the
//! implementation names the argument `name`. Descriptions are our own.

/// The type an argument is declared with. Dialogues write every value as
/// the model typed it (mostly strings); the type says what it must convert to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiType {
    Str,
    Int,
    Bool,
    /// A list of strings, written as a Python list literal or a JSON array.
    StrList,
    /// A list of objects (scene devices, health readings).
    ObjectList,
}

impl ApiType {
    pub fn name(self) -> &'static str {
        match self {
            ApiType::Str => "str",
            ApiType::Int => "int",
            ApiType::Bool => "bool",
            ApiType::StrList => "list of str",
            ApiType::ObjectList => "list of objects",
        }
    }
}

/// A format a string argument must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiFormat {
    Any,
    /// `%Y-%m-%d %H:%M:%S`
    Timestamp,
    /// `%Y-%m-%d`
    Date,
    /// `%m-%d` (a day of the year, for "on this day in history")
    MonthDay,
    /// The user's token: only an earlier `GetUserToken` (or `RegisterUser`)
    /// result can supply it.
    Token,
}

/// One argument of an API.
#[derive(Debug, Clone, Copy)]
pub struct ApiParam {
    pub name: &'static str,
    pub ty: ApiType,
    pub required: bool,
    pub format: ApiFormat,
    /// Allowed values, when the argument is an enumeration.
    pub enum_values: &'static [&'static str],
    /// Text the assistant composes (a title, a message, a search phrase):
    /// not expected to appear earlier verbatim.
    pub free_text: bool,
}

const fn p(name: &'static str, ty: ApiType) -> ApiParam {
    ApiParam {
        name,
        ty,
        required: true,
        format: ApiFormat::Any,
        enum_values: &[],
        free_text: false,
    }
}

const fn text(name: &'static str) -> ApiParam {
    p(name, ApiType::Str)
}

const fn composed(name: &'static str) -> ApiParam {
    ApiParam {
        free_text: true,
        ..p(name, ApiType::Str)
    }
}

const fn optional(param: ApiParam) -> ApiParam {
    ApiParam {
        required: false,
        ..param
    }
}

const fn timestamp(name: &'static str) -> ApiParam {
    ApiParam {
        format: ApiFormat::Timestamp,
        ..p(name, ApiType::Str)
    }
}

const fn date(name: &'static str) -> ApiParam {
    ApiParam {
        format: ApiFormat::Date,
        ..p(name, ApiType::Str)
    }
}

const TOKEN: ApiParam = ApiParam {
    format: ApiFormat::Token,
    ..p("token", ApiType::Str)
};

/// One API.
#[derive(Debug, Clone, Copy)]
pub struct ApiSpec {
    pub name: &'static str,
    /// What it does, in a sentence (our words).
    pub description: &'static str,
    pub parameters: &'static [ApiParam],
    /// Changes something (books, adds, deletes) rather than looking it up.
    pub is_action: bool,
}

impl ApiSpec {
    pub fn parameter(&self, name: &str) -> Option<&'static ApiParam> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// Takes the user's token, so somebody must have logged in first.
    pub fn requires_token(&self) -> bool {
        self.parameters.iter().any(|p| p.format == ApiFormat::Token)
    }
}

/// The APIs that hand out a token.
pub const TOKEN_SOURCES: [&str; 2] = ["GetUserToken", "RegisterUser"];

const AGENDA: &[ApiParam] = &[
    TOKEN,
    composed("content"),
    timestamp("time"),
    text("location"),
];

/// Looking an item up or deleting it: its content is the key the user
/// gives, not text the assistant writes.
const AGENDA_LOOKUP: &[ApiParam] = &[TOKEN, text("content"), timestamp("time"), text("location")];

const MEETING: &[ApiParam] = &[
    TOKEN,
    composed("meeting_topic"),
    timestamp("start_time"),
    timestamp("end_time"),
    text("location"),
    p("attendees", ApiType::StrList),
];

const MEETING_LOOKUP: &[ApiParam] = &[
    TOKEN,
    text("meeting_topic"),
    timestamp("start_time"),
    timestamp("end_time"),
    text("location"),
    p("attendees", ApiType::StrList),
];

const REMINDER: &[ApiParam] = &[TOKEN, composed("content"), timestamp("time")];

const REMINDER_LOOKUP: &[ApiParam] = &[TOKEN, text("content"), timestamp("time")];

const ALARM: &[ApiParam] = &[TOKEN, timestamp("time")];

const fn spec(
    name: &'static str,
    description: &'static str,
    parameters: &'static [ApiParam],
    is_action: bool,
) -> ApiSpec {
    ApiSpec {
        name,
        description,
        parameters,
        is_action,
    }
}

static CATALOG: [ApiSpec; 53] = [
    spec(
        "AddAgenda",
        "Puts an item on the user's agenda.",
        AGENDA,
        true,
    ),
    spec(
        "AddAlarm",
        "Sets an alarm for the user at a moment.",
        ALARM,
        true,
    ),
    spec(
        "AddMeeting",
        "Books a meeting with attendees.",
        MEETING,
        true,
    ),
    spec(
        "AddReminder",
        "Sets a reminder for the user.",
        REMINDER,
        true,
    ),
    spec(
        "AddScene",
        "Defines a smart-home scene from a list of devices.",
        &[text("name"), p("devices", ApiType::ObjectList)],
        true,
    ),
    spec(
        "AppointmentRegistration",
        "Books a doctor's appointment for a patient on a day.",
        &[text("patient_name"), date("date"), text("doctor_name")],
        true,
    ),
    spec(
        "BookHotel",
        "Reserves hotel rooms for a stay.",
        &[
            text("hotel_name"),
            date("check_in_time"),
            date("check_out_time"),
            p("room_count", ApiType::Int),
            p("adult_count", ApiType::Int),
            p("child_count", ApiType::Int),
        ],
        true,
    ),
    spec(
        "Calculator",
        "Evaluates an arithmetic expression over integers.",
        &[composed("formula")],
        false,
    ),
    spec(
        "CancelRegistration",
        "Cancels a doctor's appointment by its id.",
        &[text("appointment_id")],
        true,
    ),
    spec(
        "CancelTimedSwitch",
        "Cancels a scheduled on/off switch of a device.",
        &[text("device_id"), timestamp("time")],
        true,
    ),
    spec(
        "CheckToken",
        "Says which user a token belongs to.",
        &[TOKEN],
        false,
    ),
    spec(
        "DeleteAccount",
        "Removes the user's account.",
        &[TOKEN],
        true,
    ),
    spec(
        "DeleteAgenda",
        "Removes an agenda item.",
        AGENDA_LOOKUP,
        true,
    ),
    spec("DeleteAlarm", "Removes an alarm.", ALARM, true),
    spec("DeleteMeeting", "Cancels a meeting.", MEETING_LOOKUP, true),
    spec(
        "DeleteReminder",
        "Removes a reminder.",
        REMINDER_LOOKUP,
        true,
    ),
    spec(
        "DeleteScene",
        "Removes a smart-home scene.",
        &[text("name")],
        true,
    ),
    spec(
        "Dictionary",
        "Looks a word up in a dictionary.",
        &[text("keyword")],
        false,
    ),
    spec(
        "DocumentQA",
        "Answers a question about a text document at a URL.",
        &[text("url"), composed("question")],
        false,
    ),
    spec(
        "EmergencyKnowledge",
        "Gives first-aid advice for a symptom.",
        &[text("symptom")],
        false,
    ),
    spec(
        "ForgotPassword",
        "Two steps: asks for a verification code, then sets a new password with it.",
        &[
            ApiParam {
                enum_values: &["Forgot Password", "Verification Code"],
                ..text("status")
            },
            optional(text("username")),
            optional(text("email")),
            optional(p("verification_code", ApiType::Int)),
            optional(text("new_password")),
        ],
        true,
    ),
    spec("GetToday", "Tells today's date.", &[], false),
    spec(
        "GetUserToken",
        "Logs the user in and hands out their token.",
        &[text("username"), text("password")],
        false,
    ),
    spec(
        "ImageCaption",
        "Describes the picture at a URL.",
        &[text("url")],
        false,
    ),
    spec("ModifyAgenda", "Changes an agenda item.", AGENDA, true),
    spec(
        "ModifyAlarm",
        "Moves an alarm to another moment.",
        &[TOKEN, timestamp("from_time"), timestamp("to_time")],
        true,
    ),
    spec("ModifyMeeting", "Changes a meeting.", MEETING, true),
    spec(
        "ModifyPassword",
        "Changes the user's password.",
        &[TOKEN, text("old_password"), text("new_password")],
        true,
    ),
    spec(
        "ModifyRegistration",
        "Moves a doctor's appointment to another day or doctor.",
        &[
            text("appointment_id"),
            optional(date("new_appointment_date")),
            optional(text("new_appointment_doctor")),
        ],
        true,
    ),
    spec("ModifyReminder", "Changes a reminder.", REMINDER, true),
    spec(
        "ModifyScene",
        "Replaces the devices of a smart-home scene.",
        &[text("name"), p("devices", ApiType::ObjectList)],
        true,
    ),
    spec(
        "OpenBankAccount",
        "Opens a bank account.",
        &[text("account"), text("password"), text("name")],
        true,
    ),
    spec(
        "PlayMusic",
        "Plays a piece of music by name.",
        &[text("music_name")],
        true,
    ),
    spec(
        "QueryAgenda",
        "Looks up agenda items.",
        AGENDA_LOOKUP,
        false,
    ),
    spec("QueryAlarm", "Looks up an alarm.", ALARM, false),
    spec(
        "QueryBalance",
        "Tells the user's bank balance.",
        &[TOKEN],
        false,
    ),
    spec(
        "QueryHealthData",
        "Lists a user's health readings over a time span.",
        &[
            text("user_id"),
            timestamp("start_time"),
            timestamp("end_time"),
        ],
        false,
    ),
    spec(
        "QueryHistoryToday",
        "Lists historical events that happened on a day of the year.",
        &[ApiParam {
            format: ApiFormat::MonthDay,
            ..text("date")
        }],
        false,
    ),
    spec("QueryMeeting", "Looks up a meeting.", MEETING_LOOKUP, false),
    spec(
        "QueryRegistration",
        "Lists a patient's appointments on a day.",
        &[text("patient_name"), date("date")],
        false,
    ),
    spec(
        "QueryReminder",
        "Looks up a reminder.",
        REMINDER_LOOKUP,
        false,
    ),
    spec(
        "QueryScene",
        "Shows the devices of a smart-home scene.",
        &[text("name")],
        false,
    ),
    spec(
        "QueryStock",
        "Tells a stock's price on a day.",
        // A ticker is the model's translation of a company name it was told.
        &[composed("stock_code"), date("date")],
        false,
    ),
    spec(
        "RecordHealthData",
        "Stores health readings for a user at a moment.",
        &[
            text("user_id"),
            timestamp("time"),
            optional(p("health_data", ApiType::ObjectList)),
        ],
        true,
    ),
    spec(
        "RegisterUser",
        "Creates an account and hands out its token.",
        &[text("username"), text("password"), text("email")],
        true,
    ),
    spec(
        "SearchEngine",
        "Searches the web.",
        &[composed("keyword")],
        false,
    ),
    spec(
        "SendEmail",
        "Sends an email.",
        &[text("receiver"), composed("subject"), composed("content")],
        true,
    ),
    spec(
        "SpeechRecognition",
        "Transcribes the audio at a URL.",
        &[text("url")],
        false,
    ),
    spec(
        "SymptomSearch",
        "Lists possible illnesses for a symptom.",
        &[text("symptom")],
        false,
    ),
    spec(
        "TimedSwitch",
        "Schedules a device to switch on or off at a moment.",
        &[text("device_id"), timestamp("time"), p("on", ApiType::Bool)],
        true,
    ),
    spec(
        "ToolSearcher",
        "Finds the APIs that fit a few keywords.",
        &[composed("keywords")],
        false,
    ),
    spec(
        "Translate",
        "Translates a text into another language.",
        &[
            composed("src"),
            optional(composed("src_lang")),
            optional(composed("tgt_lang")),
        ],
        false,
    ),
    spec(
        "Wiki",
        "Looks a subject up in an encyclopedia.",
        &[text("keyword")],
        false,
    ),
];

/// All 53 APIs, sorted by name.
pub fn catalog() -> &'static [ApiSpec] {
    &CATALOG
}

/// An API by name.
pub fn api(name: &str) -> Option<&'static ApiSpec> {
    CATALOG.iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_53_apis_sorted_and_unique() {
        assert_eq!(catalog().len(), 53);
        for pair in catalog().windows(2) {
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
        assert!(api("AddAgenda").unwrap().requires_token());
        assert!(api("QueryBalance").unwrap().requires_token());
        assert!(!api("GetUserToken").unwrap().requires_token());
        assert!(!api("QueryStock").unwrap().requires_token());
        assert!(api("NoSuchApi").is_none());
    }

    #[test]
    fn contents_are_composed_when_added_and_keys_when_looked_up() {
        let free = |api_name: &str, param: &str| {
            api(api_name).unwrap().parameter(param).unwrap().free_text
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
        assert!(api("TimedSwitch").unwrap().parameter("device_id").is_some());
        assert!(api("TimedSwitch").unwrap().parameter("name").is_none());
    }
}
