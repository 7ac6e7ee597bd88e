//! AccountTools: sign in and out, register, recover a password, change the
//! account's details and look up other users.
//!
//! Database `Account`: `{username: {"username", "email", "phone", "name",
//! "password", "session_token", ["verification_code"]}}`. A `null`
//! session token means logged out. The world keeps the conversation's
//! session: it hands the token to tools that need one and takes it from
//! `UserLogin` and `RegisterUser`, dropping it after `LogoutUser` and
//! `DeleteAccount`.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{json, Map, Value};

use super::Tool;
use crate::sim::object::object;
use crate::sim::pyargs::{bind, is_non_text_key, key_error, py_eq, py_key, repr, type_name};
use crate::sim::pyrandom::PyRandom;
use crate::sim::reply::Reply;
use crate::sim::table::Record;
use crate::sim::ToolCtx;
use crate::suite::catalog::{
    FieldSpec, ParamSpec, ParamType, SessionEffect, ToolSpec, ValueFormat,
};
use crate::suites::tooltalk::compare::default_matches;
use crate::suites::tooltalk::world::Session;

pub const DESCRIPTION: &str =
    "Manage the user's account: sign in and out, register, recover a password, change details and look up other users.";

const DATABASE: &str = "Account";

pub static TOOLS: &[&Tool] = &[
    &GET_ACCOUNT_INFORMATION,
    &DELETE_ACCOUNT,
    &USER_LOGIN,
    &LOGOUT_USER,
    &CHANGE_PASSWORD,
    &REGISTER_USER,
    &SEND_VERIFICATION_CODE,
    &RESET_PASSWORD,
    &QUERY_USER,
    &UPDATE_ACCOUNT_INFORMATION,
];

const STATUS: FieldSpec = FieldSpec::new("status", "string", "\"success\" when it worked.");
const SESSION_TOKEN: &str = "The new session's token, formatted xxxxxxxx-xxxx-xxxx.";

/// What anyone may see of an account.
const PUBLIC_FIELDS: &[FieldSpec] = &[
    FieldSpec::new("username", "string", "The account's username."),
    FieldSpec::new("email", "string", "The account's email address."),
    FieldSpec::new("phone", "string", "The phone number, as xxx-xxx-xxxx."),
    FieldSpec::new("name", "string", "The person's full name."),
];

const fn text(name: &'static str, description: &'static str, required: bool) -> ParamSpec {
    ParamSpec::new(name, ParamType::String, description, required)
}

const fn email(name: &'static str, description: &'static str, required: bool) -> ParamSpec {
    ParamSpec {
        format: ValueFormat::Email,
        ..text(name, description, required)
    }
}

const fn phone(name: &'static str, description: &'static str, required: bool) -> ParamSpec {
    ParamSpec {
        format: ValueFormat::Phone,
        ..text(name, description, required)
    }
}

// ---------------------------------------------------------------------------
// Helpers shared with the other plugins' session checks.

/// `record[name]` on an account record, with Python's `KeyError`.
pub(crate) fn field<'a>(record: &'a Record, name: &str) -> Result<&'a Value, String> {
    record.get(name).ok_or_else(|| key_error(name))
}

/// `item[name]` on an item of a record (an event, a reminder, a message),
/// with Python's `KeyError`.
pub(crate) fn item_field<'a>(item: &'a Value, name: &str) -> Result<&'a Value, String> {
    crate::sim::table::field(item, name).ok_or_else(|| key_error(name))
}

/// The reference's `check_session_token(token)["username"]`: the username
/// stored in the account that holds the token.
pub(crate) fn session_username(ctx: &ToolCtx<'_>, token: &Value) -> Result<Value, String> {
    let key = ctx.check_session_token(token)?;
    field(&ctx.accounts()[&key], "username").cloned()
}

/// [`session_username`] and the key the user's records are kept under in
/// the other databases (`self.database[username]`).
pub(crate) fn session_user(ctx: &ToolCtx<'_>, token: &Value) -> Result<(Value, String), String> {
    let username = session_username(ctx, token)?;
    let key = py_key(&username)?.into_owned();
    Ok((username, key))
}

/// `KeyError` for a lookup by a value (its repr, as Python prints it).
pub(crate) fn key_error_for(key: &Value) -> String {
    match key {
        Value::String(k) => key_error(k),
        other => repr(other),
    }
}

/// A fresh session token: three draws, as the reference formats them.
fn new_session_token(rng: &mut PyRandom) -> String {
    rng.hex_id(&[8, 4, 4])
}

/// `re.match(pattern, value)` on a value Python expects to be a string.
fn regex_match(pattern: &Regex, value: &Value) -> Result<bool, String> {
    match value {
        Value::String(s) => Ok(pattern.is_match(s)),
        other => Err(format!(
            "expected string or bytes-like object, got '{}'",
            type_name(other)
        )),
    }
}

/// The reference's email check: word characters, digits, dots and hyphens
/// around one `@`. Python's `$` also lets one trailing newline through.
fn is_email(value: &Value) -> Result<bool, String> {
    match value {
        Value::String(s) => Ok(is_email_text(s)),
        other => regex_match(email_pattern(), other),
    }
}

/// The email pattern (Python's `\w` is Unicode letters, digits and `_`).
fn email_pattern() -> &'static Regex {
    static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\A[\p{L}\p{N}_.\-]+@[\p{L}\p{N}_.\-]+\n?\z").expect("valid pattern")
    });
    &EMAIL
}

/// `text` matches the email pattern. ASCII text (nearly all of it) is
/// checked directly; the Unicode pattern is only compiled for the rest.
pub(crate) fn is_email_text(text: &str) -> bool {
    if !text.is_ascii() {
        return email_pattern().is_match(text);
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    let word = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
    // `@` is no word character, so the first one is the only one.
    match body.split_once('@') {
        Some((name, domain)) => {
            !name.is_empty()
                && !domain.is_empty()
                && name.bytes().all(word)
                && domain.bytes().all(word)
        }
        None => false,
    }
}

/// The reference's phone check: `ddd-ddd-dddd` (any Unicode decimal digits).
fn is_phone(value: &Value) -> Result<bool, String> {
    match value {
        Value::String(s) => Ok(is_phone_text(s)),
        other => regex_match(phone_pattern(), other),
    }
}

fn phone_pattern() -> &'static Regex {
    static PHONE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\A\d{3}-\d{3}-\d{4}\n?\z").expect("valid pattern"));
    &PHONE
}

/// `text` matches the phone pattern; ASCII text is checked directly.
fn is_phone_text(text: &str) -> bool {
    if !text.is_ascii() {
        return phone_pattern().is_match(text);
    }
    let body = text.strip_suffix('\n').unwrap_or(text).as_bytes();
    body.len() == 12
        && body.iter().enumerate().all(|(i, &c)| match i {
            3 | 7 => c == b'-',
            _ => c.is_ascii_digit(),
        })
}

/// An account by a username the caller gave, if it exists (`username in
/// self.database`: an account registered under a username that is not text
/// is found by an equal value).
fn existing<'a>(ctx: &'a ToolCtx<'_>, username: &Value) -> Result<Option<&'a Record>, String> {
    Ok(ctx.accounts().get(&py_key(username)?))
}

/// Set `record[name] = value` on the account stored under `key`.
fn set_field(ctx: &mut ToolCtx<'_>, key: &str, name: &str, value: Value) {
    if let Some(record) = ctx
        .accounts_mut()
        .get_mut(key)
        .and_then(Record::as_object_mut)
    {
        record.insert(name, value);
    }
}

/// Set a field on the account named by a record's `username` value, as the
/// reference's `self.database[username][name] = value` does.
fn set_field_by_username(
    ctx: &mut ToolCtx<'_>,
    username: &Value,
    name: &str,
    value: Value,
) -> Result<(), String> {
    let key = py_key(username)?.into_owned();
    if !ctx.accounts().contains_key(&key) {
        return Err(key_error_for(username));
    }
    set_field(ctx, &key, name, value);
    Ok(())
}

/// What anyone may see of the account `record`, listed under `username`.
fn public_info(username: Value, record: &Record) -> Result<Value, String> {
    let email = field(record, "email")?.clone();
    let phone = field(record, "phone")?.clone();
    let name = field(record, "name")?.clone();
    Ok(object!({"username": username, "email": email, "phone": phone, "name": name}))
}

// ---------------------------------------------------------------------------

pub static GET_ACCOUNT_INFORMATION: Tool = Tool {
    spec: ToolSpec {
        name: "GetAccountInformation",
        group: "AccountTools",
        description: "Shows the signed-in user's own account details.",
        parameters: &[],
        returns: &[FieldSpec {
            fields: PUBLIC_FIELDS,
            ..FieldSpec::new(
                "user",
                "object",
                "The user's username, email, phone and name.",
            )
        }],
        is_action: false,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| get_account_information(ctx, params).map(Reply::from),
};

fn get_account_information(
    ctx: &mut ToolCtx<'_>,
    params: &Map<String, Value>,
) -> Result<Value, String> {
    let args = bind("GetAccountInformation", params, &["session_token"], &[])?;
    let key = ctx.check_session_token(args.value("session_token"))?;
    let record = &ctx.accounts()[&key];
    let username = field(record, "username")?.clone();
    Ok(object!({ "user": public_info(username, record)? }))
}

pub static DELETE_ACCOUNT: Tool = Tool {
    spec: ToolSpec {
        name: "DeleteAccount",
        group: "AccountTools",
        description: "Permanently removes the signed-in user's account and ends the session; the password must be confirmed.",
        parameters: &[text(
            "password",
            "The account's current password, as confirmation.",
            true,
        )],
        returns: &[STATUS],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::Closes,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| delete_account(ctx, params).map(Reply::from),
};

fn delete_account(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind("DeleteAccount", params, &["session_token", "password"], &[])?;
    let key = ctx.check_session_token(args.value("session_token"))?;
    let record = &ctx.accounts()[&key];
    let username = field(record, "username")?.clone();
    if !py_eq(field(record, "password")?, args.value("password")) {
        return Err("The password is incorrect.".to_string());
    }
    let stored = py_key(&username)?.into_owned();
    if ctx.accounts_mut().shift_remove(&stored).is_none() {
        return Err(key_error_for(&username));
    }
    Ok(json!({"status": "success"}))
}

pub static USER_LOGIN: Tool = Tool {
    spec: ToolSpec {
        name: "UserLogin",
        group: "AccountTools",
        description: "Signs a user in with username and password and starts a session.",
        parameters: &[
            text("username", "The account's username.", true),
            text("password", "The account's password.", true),
        ],
        returns: &[FieldSpec::new("session_token", "string", SESSION_TOKEN)],
        is_action: true,
        requires_auth: false,
        session: SessionEffect::Opens,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| user_login(ctx, params).map(Reply::from),
};

fn user_login(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind("UserLogin", params, &["username", "password"], &[])?;
    let username = args.value("username");
    let record = existing(ctx, username)?.ok_or("The username does not exist.")?;
    if !py_eq(field(record, "password")?, args.value("password")) {
        return Err("The password is incorrect.".to_string());
    }
    if !field(record, "session_token")?.is_null() {
        return Err("The user is already logged in.".to_string());
    }
    let key = py_key(username)?.into_owned();
    let token = new_session_token(ctx.rng);
    set_field(ctx, &key, "session_token", json!(token));
    Ok(object!({ "session_token": token }))
}

pub static LOGOUT_USER: Tool = Tool {
    spec: ToolSpec {
        name: "LogoutUser",
        group: "AccountTools",
        description: "Signs the current user out and ends the session.",
        parameters: &[],
        returns: &[STATUS],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::Closes,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| logout_user(ctx, params).map(Reply::from),
};

fn logout_user(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind("LogoutUser", params, &["session_token"], &[])?;
    let key = ctx.check_session_token(args.value("session_token"))?;
    set_field(ctx, &key, "session_token", Value::Null);
    Ok(json!({"status": "success"}))
}

pub static CHANGE_PASSWORD: Tool = Tool {
    spec: ToolSpec {
        name: "ChangePassword",
        group: "AccountTools",
        description: "Replaces the signed-in user's password; the current one must be given.",
        parameters: &[
            text("old_password", "The password in use now.", true),
            text("new_password", "The password to use from now on.", true),
        ],
        returns: &[STATUS],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| change_password(ctx, params).map(Reply::from),
};

fn change_password(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind(
        "ChangePassword",
        params,
        &["session_token", "old_password", "new_password"],
        &[],
    )?;
    let key = ctx.check_session_token(args.value("session_token"))?;
    let record = &ctx.accounts()[&key];
    if !py_eq(field(record, "password")?, args.value("old_password")) {
        return Err("The old password is incorrect.".to_string());
    }
    set_field(ctx, &key, "password", args.value("new_password").clone());
    Ok(json!({"status": "success"}))
}

pub static REGISTER_USER: Tool = Tool {
    spec: ToolSpec {
        name: "RegisterUser",
        group: "AccountTools",
        description: "Creates a new account and signs it in.",
        parameters: &[
            text(
                "username",
                "The username to register; it must be unused.",
                true,
            ),
            text("password", "The password for the new account.", true),
            email("email", "The account's email address.", true),
            text("name", "The person's full name.", false),
            phone("phone", "A phone number, as xxx-xxx-xxxx.", false),
        ],
        returns: &[
            FieldSpec::new("session_token", "string", SESSION_TOKEN),
            FieldSpec {
                fields: PUBLIC_FIELDS,
                ..FieldSpec::new("user", "object", "The new account's public details.")
            },
        ],
        is_action: true,
        requires_auth: false,
        session: SessionEffect::Opens,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| register_user(ctx, params).map(Reply::from),
};

fn register_user(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind(
        "RegisterUser",
        params,
        &["username", "password", "email"],
        &["name", "phone"],
    )?;
    let username = args.value("username");
    if existing(ctx, username)?.is_some() {
        return Err("The username already exists.".to_string());
    }
    let email = args.value("email");
    if !is_email(email)? {
        return Err("The email format is invalid.".to_string());
    }
    let phone = args.value("phone");
    if !phone.is_null() && !is_phone(phone)? {
        return Err("The phone number format is invalid.".to_string());
    }
    let name = args.value("name");
    let token = new_session_token(ctx.rng);
    let record = object!({
        "username": username,
        "password": args.value("password"),
        "session_token": &token,
        "email": email,
        "phone": phone,
        "name": name,
    });
    ctx.accounts_mut()
        .insert(py_key(username)?.into_owned(), record);
    Ok(object!({
        "session_token": token,
        "user": object!({"username": username, "email": email, "phone": phone, "name": name}),
    }))
}

pub static SEND_VERIFICATION_CODE: Tool = Tool {
    spec: ToolSpec {
        name: "SendVerificationCode",
        group: "AccountTools",
        description: "Starts a password reset: sends a six-digit code to the account's email address, which must be given and must match.",
        parameters: &[
            text("username", "The account's username.", true),
            email("email", "The email address on the account.", true),
        ],
        returns: &[STATUS],
        is_action: true,
        requires_auth: false,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| send_verification_code(ctx, params).map(Reply::from),
};

fn send_verification_code(
    ctx: &mut ToolCtx<'_>,
    params: &Map<String, Value>,
) -> Result<Value, String> {
    let args = bind("SendVerificationCode", params, &["username", "email"], &[])?;
    let username = args.value("username");
    let record = existing(ctx, username)?.ok_or("The username does not exist.")?;
    if !py_eq(field(record, "email")?, args.value("email")) {
        return Err("The email is incorrect.".to_string());
    }
    let code = format!("{:06}", ctx.rng.randint(0, 999_999));
    set_field(ctx, &py_key(username)?, "verification_code", json!(code));
    Ok(json!({"status": "success"}))
}

pub static RESET_PASSWORD: Tool = Tool {
    spec: ToolSpec {
        name: "ResetPassword",
        group: "AccountTools",
        description:
            "Sets a new password for an account using the code sent by SendVerificationCode.",
        parameters: &[
            text("username", "The account's username.", true),
            text(
                "verification_code",
                "The six-digit code the user received.",
                true,
            ),
            text("new_password", "The password to use from now on.", true),
        ],
        returns: &[STATUS],
        is_action: true,
        requires_auth: false,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| reset_password(ctx, params).map(Reply::from),
};

fn reset_password(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind(
        "ResetPassword",
        params,
        &["username", "verification_code", "new_password"],
        &[],
    )?;
    let username = args.value("username");
    let record = existing(ctx, username)?.ok_or("The username does not exist.")?;
    let code_matches = record
        .get("verification_code")
        .is_some_and(|code| py_eq(code, args.value("verification_code")));
    if !code_matches {
        return Err("The verification code is incorrect.".to_string());
    }
    set_field(
        ctx,
        &py_key(username)?,
        "password",
        args.value("new_password").clone(),
    );
    Ok(json!({"status": "success"}))
}

pub static QUERY_USER: Tool = Tool {
    spec: ToolSpec {
        name: "QueryUser",
        group: "AccountTools",
        description: "Looks up users by username, or else by email address (several accounts may share one). At least one of the two is needed.",
        parameters: &[
            text(
                "username",
                "The username to look up; needed when no email is given.",
                false,
            ),
            email(
                "email",
                "The email address to look up; needed when no username is given.",
                false,
            ),
        ],
        returns: &[FieldSpec {
            fields: PUBLIC_FIELDS,
            ..FieldSpec::new(
                "users",
                "array",
                "The matching accounts' public details (empty when none match).",
            )
        }],
        is_action: false,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| query_user(ctx, params).map(Reply::from),
};

fn query_user(ctx: &mut ToolCtx<'_>, params: &Map<String, Value>) -> Result<Value, String> {
    let args = bind(
        "QueryUser",
        params,
        &["session_token"],
        &["username", "email"],
    )?;
    ctx.check_session_token(args.value("session_token"))?;
    let (username, email) = (args.get("username"), args.get("email"));
    let users = match (username, email) {
        (None, None) => {
            return Err("You need to provide at least one of username and email.".to_string())
        }
        // A username wins; the email is then ignored.
        (Some(username), _) => match existing(ctx, username)? {
            Some(record) => vec![public_info(username.clone(), record)?],
            None => vec![],
        },
        (None, Some(email)) => {
            let mut users = Vec::new();
            for (key, record) in ctx.accounts() {
                if py_eq(field(record, "email")?, email) {
                    // A key that is not text is the registered username.
                    let username = if is_non_text_key(key) {
                        field(record, "username")?.clone()
                    } else {
                        json!(key)
                    };
                    users.push(public_info(username, record)?);
                }
            }
            users
        }
    };
    Ok(object!({ "users": users }))
}

pub static UPDATE_ACCOUNT_INFORMATION: Tool = Tool {
    spec: ToolSpec {
        name: "UpdateAccountInformation",
        group: "AccountTools",
        description: "Changes the signed-in user's email address, phone number or name; the password must be confirmed, and a new email or phone number must be among the changes.",
        parameters: &[
            text("password", "The account's password, as confirmation.", true),
            email("new_email", "The email address to use instead.", false),
            phone(
                "new_phone_number",
                "The phone number to use instead, as xxx-xxx-xxxx.",
                false,
            ),
            text("new_name", "The name to use instead.", false),
        ],
        // The reference documents a `success` field but answers with `status`.
        returns: &[STATUS],
        is_action: true,
        requires_auth: true,
        session: SessionEffect::None,
        tells_today: false,
        database: Some(DATABASE),
        matches: default_matches,
    },
    run: |ctx, params| update_account_information(ctx, params).map(Reply::from),
};

fn update_account_information(
    ctx: &mut ToolCtx<'_>,
    params: &Map<String, Value>,
) -> Result<Value, String> {
    let args = bind(
        "UpdateAccountInformation",
        params,
        &["session_token", "password"],
        &["new_email", "new_phone_number", "new_name"],
    )?;
    let key = ctx.check_session_token(args.value("session_token"))?;
    let record = &ctx.accounts()[&key];
    let username = field(record, "username")?.clone();
    if !py_eq(field(record, "password")?, args.value("password")) {
        return Err("The password is incorrect.".to_string());
    }
    let (new_email, new_phone) = (args.get("new_email"), args.get("new_phone_number"));
    if new_email.is_none() && new_phone.is_none() {
        return Err(
            "You need to provide at least one of new_email and new_phone_number.".to_string(),
        );
    }
    // Each change is stored as soon as it is checked: a bad phone number
    // leaves a new email in place, as in the reference.
    if let Some(new_email) = new_email {
        if !is_email(new_email)? {
            return Err("The email is invalid.".to_string());
        }
        set_field_by_username(ctx, &username, "email", new_email.clone())?;
    }
    if let Some(new_phone) = new_phone {
        if !is_phone(new_phone)? {
            return Err("The phone number is invalid.".to_string());
        }
        set_field_by_username(ctx, &username, "phone", new_phone.clone())?;
    }
    if let Some(new_name) = args.get("new_name") {
        set_field_by_username(ctx, &username, "name", new_name.clone())?;
    }
    Ok(json!({"status": "success"}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direct_email_and_phone_checks_agree_with_the_patterns() {
        let texts = [
            "ann@example.com",
            "ann.lee-2_x@mail.example.org",
            "ann@example.com\n",
            "ann@example.com\n\n",
            "\nann@example.com",
            "@example.com",
            "ann@",
            "ann@@example.com",
            "ann@exa@mple.com",
            "ann smith@example.com",
            "ann+tag@example.com",
            "",
            "@",
            "ann",
            "jos\u{e9}@example.com",
            "\u{661}\u{662}\u{663}-456-7890",
            "123-456-7890",
            "123-456-7890\n",
            "123-456-789",
            "123-456-78901",
            "123 456 7890",
            "1234567890",
            "123-456-789a",
            "12-3456-7890",
        ];
        for text in texts {
            assert_eq!(
                is_email_text(text),
                email_pattern().is_match(text),
                "email {text:?}"
            );
            assert_eq!(
                is_phone_text(text),
                phone_pattern().is_match(text),
                "phone {text:?}"
            );
        }
    }
    use crate::sim::Databases;
    use crate::suites::tooltalk::plugins::testing::{self, call};
    use crate::suites::tooltalk::World;

    // python3: r = random.Random(489)
    //   [f"{r.randint(0, 0xffffffff):08x}-{r.randint(0, 0xffff):04x}-{r.randint(0, 0xffff):04x}" for _ in range(2)]
    const FIRST_TOKEN: &str = "e149636f-d9ca-0792";
    const SECOND_TOKEN: &str = "5c5373e0-fa69-84c3";
    // python3: r = random.Random(489); [f"{r.randint(0, 999999):06d}" for _ in range(2)]
    const FIRST_CODE: &str = "984520";
    const SECOND_CODE: &str = "968507";

    fn databases() -> Databases {
        let accounts = json!({
            "ann": {"username": "ann", "email": "ann@x.com", "phone": "111-222-3333",
                    "name": "Ann A", "password": "pw-ann", "session_token": null},
            "bob": {"username": "bob", "email": "shared@x.com", "phone": "444-555-6666",
                    "name": "Bob B", "password": "pw-bob", "session_token": null},
            "cy": {"username": "cy", "email": "shared@x.com", "phone": "777-888-9999",
                   "name": "Cy C", "password": "pw-cy", "session_token": "tok-cy"},
        });
        testing::databases([("Account", accounts)])
    }

    fn world(user: Option<&str>, code: Option<&str>) -> World {
        testing::world(&databases(), user, code)
    }

    fn account(w: &World, user: &str) -> Value {
        w.table("Account").unwrap()[user].to_value()
    }

    /// An account registered under a username that is not text is kept
    /// under that value, as a Python dict keeps it: an equal value (`5.0`
    /// for `5`) finds it, its text (`"5"`) does not, and the tools name it
    /// and store it as the value it is.
    #[test]
    fn a_username_that_is_not_text_is_a_key_of_its_own() {
        let mut w = world(None, None);
        let register = json!({"username": 5, "password": "pw", "email": "five@x.com"});
        let five = json!({"username": 5, "email": "five@x.com", "phone": null, "name": null});
        assert_eq!(
            call(&mut w, "RegisterUser", register.clone()).unwrap(),
            json!({"session_token": FIRST_TOKEN, "user": five})
        );
        assert_eq!(
            call(&mut w, "RegisterUser", register).unwrap_err(),
            "Only one user can be logged in at a time. Current user is 5."
        );
        let mut five_point_o = five.clone();
        five_point_o["username"] = json!(5.0);
        for (query, users) in [
            (json!({"username": 5.0}), json!([five_point_o])),
            (json!({"username": "5"}), json!([])),
            (json!({"email": "five@x.com"}), json!([five])),
        ] {
            let found = call(&mut w, "QueryUser", query.clone()).unwrap();
            assert_eq!(found, json!({ "users": users }), "{query}");
        }
        // The user's records in the other databases are kept under the
        // value too, and the value is what the tools write.
        let day = json!({"start_time": "2023-09-12 00:00:00", "end_time": "2023-09-13 00:00:00"});
        assert_eq!(
            call(&mut w, "QueryCalendar", day.clone()).unwrap_err(),
            "User 5 has no events."
        );
        let meeting = |attendees: Value| {
            json!({"name": "n", "event_type": "meeting", "start_time": "2023-09-12 10:00:00",
                   "end_time": "2023-09-12 11:00:00", "attendees": attendees})
        };
        call(&mut w, "CreateEvent", meeting(json!(["ann"]))).unwrap();
        assert_eq!(
            call(&mut w, "CreateEvent", meeting(json!("ann"))).unwrap_err(),
            "'in <string>' requires string as left operand, not int"
        );
        let events = call(&mut w, "QueryCalendar", day).unwrap();
        assert_eq!(events["events"][0]["attendees"], json!(["ann", 5]));

        call(&mut w, "LogoutUser", json!({})).unwrap();
        let login =
            |username: Value, password: &str| json!({"username": username, "password": password});
        assert_eq!(
            call(&mut w, "UserLogin", login(json!("5"), "pw")).unwrap_err(),
            "The username does not exist."
        );
        assert_eq!(
            call(&mut w, "UserLogin", login(json!(5.0), "pw")).unwrap(),
            json!({ "session_token": FIRST_TOKEN })
        );
        call(&mut w, "LogoutUser", json!({})).unwrap();
        let code = json!({"username": 5, "email": "five@x.com"});
        call(&mut w, "SendVerificationCode", code).unwrap();
        let reset = json!({"username": 5, "verification_code": FIRST_CODE, "new_password": "new"});
        call(&mut w, "ResetPassword", reset).unwrap();
        assert_eq!(
            call(&mut w, "UserLogin", login(json!(true), "new")).unwrap_err(),
            "The username does not exist."
        );
        assert_eq!(
            call(&mut w, "UserLogin", login(json!(5), "new")).unwrap(),
            json!({ "session_token": SECOND_TOKEN })
        );
        let accounts = w.table("Account").unwrap().len();
        call(&mut w, "DeleteAccount", json!({"password": "new"})).unwrap();
        assert_eq!(w.table("Account").unwrap().len(), accounts - 1);
    }

    #[test]
    fn login_checks_in_order_then_opens_a_session() {
        let mut w = world(None, None);
        let cases = [
            (
                json!({"username": "zed", "password": "x"}),
                "The username does not exist.",
            ),
            (
                json!({"username": 5, "password": "x"}),
                "The username does not exist.",
            ),
            (
                json!({"username": ["ann"], "password": "x"}),
                "unhashable type: 'list'",
            ),
            (
                json!({"username": "ann", "password": "nope"}),
                "The password is incorrect.",
            ),
            (
                json!({"username": "cy", "password": "pw-cy"}),
                "The user is already logged in.",
            ),
            (
                json!({"username": "ann"}),
                "UserLogin.call() missing 1 required positional argument: 'password'",
            ),
            (
                json!({"username": "ann", "password": "pw-ann", "remember": true}),
                "UserLogin.call() got an unexpected keyword argument 'remember'",
            ),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "UserLogin", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
        let ok = call(
            &mut w,
            "UserLogin",
            json!({"username": "ann", "password": "pw-ann"}),
        );
        assert_eq!(ok.unwrap(), json!({"session_token": FIRST_TOKEN}));
        assert_eq!(account(&w, "ann")["session_token"], FIRST_TOKEN);
        assert_eq!(w.session_token(), Some(FIRST_TOKEN));
        // The world refuses a second login before the tool runs.
        assert_eq!(
            call(
                &mut w,
                "UserLogin",
                json!({"username": "bob", "password": "pw-bob"})
            )
            .unwrap_err(),
            "Only one user can be logged in at a time. Current user is ann."
        );
        // Log out and back in: the tool's stream goes on.
        assert_eq!(
            call(&mut w, "LogoutUser", json!({})).unwrap(),
            json!({"status": "success"})
        );
        assert_eq!(account(&w, "ann")["session_token"], Value::Null);
        assert_eq!(w.session_token(), None);
        let again = call(
            &mut w,
            "UserLogin",
            json!({"username": "ann", "password": "pw-ann"}),
        );
        assert_eq!(again.unwrap(), json!({"session_token": SECOND_TOKEN}));
    }

    #[test]
    fn logout_needs_a_session_and_a_matching_account() {
        let mut w = world(None, None);
        assert_eq!(
            call(&mut w, "LogoutUser", json!({})).unwrap_err(),
            "User is not logged in"
        );
        let mut w = world(Some("ann"), None);
        assert_eq!(
            call(&mut w, "LogoutUser", json!({"everyone": true})).unwrap_err(),
            "LogoutUser.call() got an unexpected keyword argument 'everyone'"
        );
        call(&mut w, "LogoutUser", json!({})).unwrap();
        assert_eq!(
            call(&mut w, "LogoutUser", json!({})).unwrap_err(),
            "User is not logged in"
        );
    }

    #[test]
    fn register_user_checks_then_stores_the_account_in_field_order() {
        let mut w = world(None, None);
        let base = json!({"username": "dee", "password": "pw", "email": "dee@x.com"});
        let with = |k: &str, v: Value| {
            let mut p = base.clone();
            p[k] = v;
            p
        };
        let cases = [
            (with("username", json!("ann")), "The username already exists."),
            (with("username", json!({"a": 1})), "unhashable type: 'dict'"),
            (with("email", json!("dee at x.com")), "The email format is invalid."),
            (with("email", json!("a@b@c")), "The email format is invalid."),
            (with("email", json!(7)), "expected string or bytes-like object, got 'int'"),
            (with("phone", json!("5551234567")), "The phone number format is invalid."),
            (with("phone", json!("555-123-45678")), "The phone number format is invalid."),
            (with("phone", json!(5551234567u64)), "expected string or bytes-like object, got 'int'"),
            (
                json!({"username": "dee"}),
                "RegisterUser.call() missing 2 required positional arguments: 'password' and 'email'",
            ),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "RegisterUser", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
        // Failures drew nothing; a trailing newline passes Python's `$`.
        let params = with("phone", json!("555-123-4567\n"));
        let done = call(&mut w, "RegisterUser", params).unwrap();
        assert_eq!(
            done,
            json!({"session_token": FIRST_TOKEN,
                   "user": {"username": "dee", "email": "dee@x.com",
                            "phone": "555-123-4567\n", "name": null}})
        );
        let stored = account(&w, "dee");
        let keys: Vec<&str> = stored
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "username",
                "password",
                "session_token",
                "email",
                "phone",
                "name"
            ]
        );
        assert_eq!(stored["session_token"], FIRST_TOKEN);
        assert_eq!(w.session_token(), Some(FIRST_TOKEN));
        // The new account is last, in database order.
        assert_eq!(
            w.table("Account").unwrap().keys().next_back().unwrap(),
            "dee"
        );
        assert_eq!(
            call(&mut w, "RegisterUser", with("username", json!("eve"))).unwrap_err(),
            "Only one user can be logged in at a time. Current user is dee."
        );
    }

    #[test]
    fn get_account_information_shows_public_fields() {
        let mut w = world(Some("ann"), None);
        assert_eq!(
            call(&mut w, "GetAccountInformation", json!({})).unwrap(),
            json!({"user": {"username": "ann", "email": "ann@x.com",
                            "phone": "111-222-3333", "name": "Ann A"}})
        );
        let mut w = world(None, None);
        assert_eq!(
            call(&mut w, "GetAccountInformation", json!({})).unwrap_err(),
            "User is not logged in"
        );
    }

    #[test]
    fn a_deleted_account_ends_the_session() {
        let mut w = world(Some("ann"), None);
        call(&mut w, "DeleteAccount", json!({"password": "pw-ann"})).unwrap();
        // The world forgot the token, so later calls are refused before the tool runs.
        assert_eq!(
            call(&mut w, "GetAccountInformation", json!({})).unwrap_err(),
            "User is not logged in"
        );
        assert_eq!(
            call(
                &mut w,
                "UserLogin",
                json!({"username": "ann", "password": "pw-ann"})
            )
            .unwrap_err(),
            "The username does not exist."
        );
    }

    #[test]
    fn delete_account_confirms_the_password_then_removes_and_logs_out() {
        let mut w = world(Some("ann"), None);
        assert_eq!(
            call(&mut w, "DeleteAccount", json!({"password": "wrong"})).unwrap_err(),
            "The password is incorrect."
        );
        assert_eq!(
            call(&mut w, "DeleteAccount", json!({})).unwrap_err(),
            "DeleteAccount.call() missing 1 required positional argument: 'password'"
        );
        assert_eq!(
            call(&mut w, "DeleteAccount", json!({"password": "pw-ann"})).unwrap(),
            json!({"status": "success"})
        );
        assert!(!w.table("Account").unwrap().contains_key("ann"));
        assert_eq!(w.session_token(), None);
        let remaining: Vec<&str> = w.table("Account").unwrap().keys().collect();
        assert_eq!(remaining, ["bob", "cy"]);
    }

    #[test]
    fn change_password_checks_the_old_one() {
        let mut w = world(Some("ann"), None);
        assert_eq!(
            call(
                &mut w,
                "ChangePassword",
                json!({"old_password": "x", "new_password": "y"})
            )
            .unwrap_err(),
            "The old password is incorrect."
        );
        assert_eq!(account(&w, "ann")["password"], "pw-ann");
        assert_eq!(
            call(
                &mut w,
                "ChangePassword",
                json!({"old_password": "pw-ann", "new_password": "y"})
            )
            .unwrap(),
            json!({"status": "success"})
        );
        assert_eq!(account(&w, "ann")["password"], "y");
    }

    #[test]
    fn verification_codes_are_drawn_and_reset_the_password() {
        let mut w = world(None, None);
        let cases = [
            (
                json!({"username": "zed", "email": "x@x.com"}),
                "The username does not exist.",
            ),
            (
                json!({"username": "ann", "email": "other@x.com"}),
                "The email is incorrect.",
            ),
            (
                json!({"email": "x@x.com"}),
                "SendVerificationCode.call() missing 1 required positional argument: 'username'",
            ),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "SendVerificationCode", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
        let reset = |w: &mut World, user: &str, code: Value| {
            call(
                w,
                "ResetPassword",
                json!({"username": user, "verification_code": code, "new_password": "new"}),
            )
        };
        // No code sent yet.
        assert_eq!(
            reset(&mut w, "ann", json!("000000")).unwrap_err(),
            "The verification code is incorrect."
        );
        assert_eq!(
            reset(&mut w, "zed", json!("000000")).unwrap_err(),
            "The username does not exist."
        );
        let send = json!({"username": "ann", "email": "ann@x.com"});
        assert_eq!(
            call(&mut w, "SendVerificationCode", send.clone()).unwrap(),
            json!({"status": "success"})
        );
        assert_eq!(account(&w, "ann")["verification_code"], FIRST_CODE);
        // A second code replaces the first.
        call(&mut w, "SendVerificationCode", send).unwrap();
        assert_eq!(account(&w, "ann")["verification_code"], SECOND_CODE);
        assert_eq!(
            reset(&mut w, "ann", json!(FIRST_CODE)).unwrap_err(),
            "The verification code is incorrect."
        );
        // A number is not the string Python stored.
        assert_eq!(
            reset(&mut w, "ann", json!(968507)).unwrap_err(),
            "The verification code is incorrect."
        );
        assert_eq!(
            reset(&mut w, "ann", json!(SECOND_CODE)).unwrap(),
            json!({"status": "success"})
        );
        assert_eq!(account(&w, "ann")["password"], "new");
        // A seeded code works without sending one.
        let mut w = world(Some("bob"), Some("123456"));
        assert_eq!(
            reset(&mut w, "bob", json!("123456")).unwrap(),
            json!({"status": "success"})
        );
    }

    #[test]
    fn query_user_by_username_or_by_email() {
        let mut w = world(Some("ann"), None);
        let bob = json!({"username": "bob", "email": "shared@x.com", "phone": "444-555-6666", "name": "Bob B"});
        let cy = json!({"username": "cy", "email": "shared@x.com", "phone": "777-888-9999", "name": "Cy C"});
        let cases = [
            (json!({"username": "bob"}), json!({"users": [bob]})),
            (
                json!({"username": "bob", "email": "nobody@x.com"}),
                json!({"users": [bob]}),
            ),
            (
                json!({"username": "zed", "email": "shared@x.com"}),
                json!({"users": []}),
            ),
            (
                json!({"username": null, "email": "shared@x.com"}),
                json!({"users": [bob, cy]}),
            ),
            (json!({"email": "nobody@x.com"}), json!({"users": []})),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "QueryUser", params.clone()).unwrap(),
                want,
                "{params}"
            );
        }
        assert_eq!(
            call(&mut w, "QueryUser", json!({"username": null})).unwrap_err(),
            "You need to provide at least one of username and email."
        );
        assert_eq!(
            call(&mut w, "QueryUser", json!({"username": ["bob"]})).unwrap_err(),
            "unhashable type: 'list'"
        );
        let mut w = world(None, None);
        assert_eq!(
            call(&mut w, "QueryUser", json!({"username": "bob"})).unwrap_err(),
            "User is not logged in"
        );
    }

    #[test]
    fn update_account_information_checks_and_keeps_partial_changes() {
        let mut w = world(Some("ann"), None);
        let before = account(&w, "ann");
        let cases = [
            (
                json!({"password": "no", "new_email": "a@b.c"}),
                "The password is incorrect.",
            ),
            (
                json!({"password": "pw-ann", "new_name": "Annie"}),
                "You need to provide at least one of new_email and new_phone_number.",
            ),
            (
                json!({"password": "pw-ann", "new_email": "a.b.c"}),
                "The email is invalid.",
            ),
            (
                json!({"password": "pw-ann", "new_phone_number": "12-345-6789"}),
                "The phone number is invalid.",
            ),
            (
                json!({"password": "pw-ann", "new_phone_number": 1}),
                "expected string or bytes-like object, got 'int'",
            ),
        ];
        for (params, want) in cases {
            assert_eq!(
                call(&mut w, "UpdateAccountInformation", params.clone()).unwrap_err(),
                want,
                "{params}"
            );
        }
        assert_eq!(account(&w, "ann"), before);
        // The new email is stored before the phone number is refused.
        assert_eq!(
            call(
                &mut w,
                "UpdateAccountInformation",
                json!({"password": "pw-ann", "new_email": "new@x.com", "new_phone_number": "bad"})
            )
            .unwrap_err(),
            "The phone number is invalid."
        );
        assert_eq!(account(&w, "ann")["email"], "new@x.com");
        assert_eq!(
            call(
                &mut w,
                "UpdateAccountInformation",
                json!({"password": "pw-ann", "new_phone_number": "999-999-9999", "new_name": "Annie"})
            )
            .unwrap(),
            json!({"status": "success"})
        );
        let ann = account(&w, "ann");
        assert_eq!(
            (ann["phone"].as_str(), ann["name"].as_str()),
            (Some("999-999-9999"), Some("Annie"))
        );
    }

    #[test]
    fn specs_describe_the_reference_signature() {
        assert_eq!(TOOLS.len(), 10);
        let auth: Vec<&str> = TOOLS
            .iter()
            .filter(|t| t.spec.requires_auth)
            .map(|t| t.spec.name)
            .collect();
        assert_eq!(
            auth,
            [
                "GetAccountInformation",
                "DeleteAccount",
                "LogoutUser",
                "ChangePassword",
                "QueryUser",
                "UpdateAccountInformation"
            ]
        );
        let queries: Vec<&str> = TOOLS
            .iter()
            .filter(|t| !t.spec.is_action)
            .map(|t| t.spec.name)
            .collect();
        assert_eq!(queries, ["GetAccountInformation", "QueryUser"]);
        assert!(TOOLS.iter().all(|t| t.spec.database == Some("Account")));
        let required = |t: &ToolSpec| -> Vec<&str> {
            t.parameters
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name)
                .collect()
        };
        assert_eq!(
            required(&REGISTER_USER.spec),
            ["username", "password", "email"]
        );
        assert_eq!(required(&UPDATE_ACCOUNT_INFORMATION.spec), ["password"]);
        assert!(required(&QUERY_USER.spec).is_empty());
        assert_eq!(
            REGISTER_USER.spec.parameter("phone").unwrap().format,
            ValueFormat::Phone
        );
        assert!(TOOLS
            .iter()
            .flat_map(|t| t.spec.parameters)
            .all(|p| !p.free_text));
    }
}
