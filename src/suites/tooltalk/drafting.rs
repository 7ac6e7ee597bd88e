//! Drafting ToolTalk conversations with an LLM: one prompt per accepted
//! scenario of the pools given, documenting the scenario's plugins, with
//! the user and moment `scaffold` would choose; the model writes the
//! conversation with its calls in the text form `[Tool(key='value')]`,
//! read by the same reader as API-Bank's calls (`formats::call_text`) and typed by each parameter's
//! declared type; the draft becomes a conversation file (the skeleton's
//! metadata, the drafted turns) whose results and session tokens `fill`
//! records.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::catalog::{catalog, tool};
use crate::formats::call_text::parse_api_request;
use crate::formats::scenario::ScenarioPool;
use crate::suite::drafting::{DraftJob, DraftRequest, DraftTurn, Drafting};
use crate::suite::ParamType;
use crate::{Error, Result};

/// ToolTalk's drafting material.
pub struct ToolTalkDrafting;

impl Drafting for ToolTalkDrafting {
    fn dialogue_template(&self) -> (&'static str, &'static str) {
        (
            "prompts/draft-tooltalk.j2",
            include_str!("../../../prompts/draft-tooltalk.j2"),
        )
    }

    fn dialogue_jobs(&self, request: &DraftRequest) -> Result<Vec<DraftJob>> {
        if request.scenarios.is_empty() {
            return Err(Error::Usage(
                "ToolTalk conversations are drafted from scenarios: pass --scenarios with pool files or folders (from `talkforge generate`)".into(),
            ));
        }
        let pools = crate::formats::discover(request.scenarios, &["json"])?;
        let mut jobs = Vec::new();
        for path in &pools {
            let (_, value) = crate::formats::read_json(path)?;
            let Ok(pool) = serde_json::from_value::<ScenarioPool>(value) else {
                // A folder of pools may hold a manifest or prompts beside them.
                continue;
            };
            for (i, scenario) in pool.scenarios.iter().enumerate() {
                if !scenario.accepted {
                    continue;
                }
                let wanted = |t: &String| request.tools.is_empty() || request.tools.contains(t);
                if !scenario.tools.iter().any(wanted) {
                    continue;
                }
                for draft in 1..=request.per_group {
                    jobs.push(job(request.databases_dir, &pool, i, draft, path)?);
                }
            }
        }
        if jobs.is_empty() {
            return Err(Error::Usage(format!(
                "no accepted scenario in {} to draft from",
                request
                    .scenarios
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(jobs)
    }

    /// The call's values typed by the tool's parameters: text for a
    /// string, a number, a boolean, a list or a dict read as a Python
    /// literal; a value that does not read as its type stays text (lint's
    /// `argument-type` then names it).
    fn read_call(&self, text: &str) -> std::result::Result<(String, Map<String, Value>), String> {
        let request = parse_api_request(text).map_err(|failure| failure.to_string())?;
        let spec = tool(&request.api_name);
        let parameters = request
            .param_dict
            .into_iter()
            .map(|(name, value)| {
                let declared = spec.and_then(|s| s.parameter(&name)).map(|p| p.ty);
                let typed = match (declared, value.as_str()) {
                    (Some(ty), Some(text)) if ty != ParamType::String => {
                        typed(text).unwrap_or(value)
                    }
                    _ => value,
                };
                (name, typed)
            })
            .collect();
        Ok((request.api_name, parameters))
    }

    /// The skeleton's conversation with the drafted turns: each user line
    /// a user turn; the calls and the reply that follow it one assistant
    /// turn (calls under `apis`, without results).
    fn dialogue_text(
        &self,
        job: &DraftJob,
        turns: &[DraftTurn],
    ) -> std::result::Result<String, String> {
        let mut conversation: Vec<Value> = Vec::new();
        let mut calls: Vec<Value> = Vec::new();
        for turn in turns {
            match turn {
                DraftTurn::User(text) => {
                    if !calls.is_empty() {
                        return Err(
                            "calls before a user turn with no assistant reply after them".into(),
                        );
                    }
                    conversation
                        .push(json!({"index": conversation.len(), "role": "user", "text": text}));
                }
                DraftTurn::Call {
                    api_name,
                    parameters,
                } => {
                    calls.push(json!({"request": {"api_name": api_name, "parameters": parameters}}))
                }
                DraftTurn::Assistant(text) => {
                    let mut turn =
                        json!({"index": conversation.len(), "role": "assistant", "text": text});
                    if !calls.is_empty() {
                        turn["apis"] = Value::Array(std::mem::take(&mut calls));
                    }
                    conversation.push(turn);
                }
            }
        }
        if !calls.is_empty() {
            return Err("the draft ends on calls with no assistant reply after them".into());
        }
        let mut file = job.frame.clone();
        file["conversation"] = Value::Array(conversation);
        Ok(format!("{}\n", crate::formats::to_python_json(&file)))
    }
}

/// The prompt for draft `draft` of scenario `index` of `pool` (read from
/// `path`): the first is named after the scenario, the others `-d2`,
/// `-d3`...
fn job(
    databases: &Path,
    pool: &ScenarioPool,
    index: usize,
    draft: usize,
    path: &Path,
) -> Result<DraftJob> {
    let scenario = &pool.scenarios[index];
    let (user, _) = super::scaffold::pick_user(databases, None, &scenario.text)?;
    let now = super::scaffold::moment(databases)?;
    let name = match draft {
        1 => format!("{}-{}", pool.name, index + 1),
        n => format!("{}-{}-d{n}", pool.name, index + 1),
    };
    let mut skeleton = super::scaffold::skeleton(
        &name,
        &scenario.text,
        Some(&pool.required_tool),
        &scenario.tools,
        user.clone(),
        &now,
    );
    // The skeleton's id and session token are fresh each time; a draft's
    // are made from its name, so that a rerun writes the same file.
    reproducible_ids(&mut skeleton);
    let tools: Vec<&'static str> = catalog()
        .tools()
        .iter()
        .filter(|t| skeleton.suites_used.iter().any(|g| g == t.group))
        .map(|t| t.name)
        .collect();
    let frame = serde_json::to_value(&skeleton)
        .map_err(|e| Error::input(path, format!("cannot write the skeleton: {e}")))?;
    Ok(DraftJob {
        name,
        draft,
        targets: vec![pool.required_tool.clone()],
        tools,
        context: json!({
            "scenario": scenario.text,
            "user": user,
            "timestamp": now,
            "logged_in": skeleton.metadata.session_token.is_some(),
            "required_tools": [pool.required_tool],
        }),
        frame,
    })
}

/// The skeleton's conversation id and session token (when it starts
/// logged in) made from its name: the same name, the same values.
fn reproducible_ids(skeleton: &mut crate::dialogue::Conversation) {
    let digest = crate::llm::sha256_hex(skeleton.name.as_bytes());
    let hex = |range: std::ops::Range<usize>| &digest[range];
    skeleton.conversation_id = format!(
        "{}-{}-{}-{}-{}",
        hex(0..8),
        hex(8..12),
        hex(12..16),
        hex(16..20),
        hex(20..32)
    );
    if skeleton.metadata.session_token.is_some() {
        let token = format!("{}-{}-{}", hex(32..40), hex(40..44), hex(44..48));
        skeleton.metadata.session_token = Some(token.clone());
        skeleton.user.session_token = Some(token);
    }
}

/// A Python or JSON literal's value.
fn typed(text: &str) -> Option<Value> {
    crate::json::pyliteral::parse(text)
        .map(|json| json.to_value())
        .or_else(|| serde_json::from_str(text).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_typed_by_their_parameters() {
        let (name, parameters) = ToolTalkDrafting
            .read_call("[AddReminder(task='Call Bob', due_date='2023-05-01 10:00:00')]")
            .unwrap();
        assert_eq!(name, "AddReminder");
        assert_eq!(parameters["task"], json!("Call Bob"));
        let (_, parameters) = ToolTalkDrafting
            .read_call("[SendEmail(to=['a@b.com', \"c@d.com\"], subject='Hi', body='3')]")
            .unwrap();
        assert_eq!(parameters["to"], json!(["a@b.com", "c@d.com"]));
        // Text stays text, even when it reads as a number.
        assert_eq!(parameters["body"], json!("3"));
        // A value that is no literal of its type stays as written.
        let (_, parameters) = ToolTalkDrafting
            .read_call("[SendEmail(to=a@b.com, subject='Hi', body='x')]")
            .unwrap();
        assert_eq!(parameters["to"], json!("a@b.com"));
    }

    #[test]
    fn turns_group_into_assistant_turns_with_their_calls() {
        let job = DraftJob {
            name: "x".into(),
            draft: 1,
            targets: Vec::new(),
            tools: vec![],
            context: Value::Null,
            frame: json!({"name": "x", "conversation": []}),
        };
        let mut parameters = Map::new();
        parameters.insert("time".into(), json!("07:00:00"));
        let turns = vec![
            DraftTurn::User("Wake me at 7".into()),
            DraftTurn::Call {
                api_name: "AddAlarm".into(),
                parameters,
            },
            DraftTurn::Assistant("Done.".into()),
        ];
        let text = ToolTalkDrafting.dialogue_text(&job, &turns).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["conversation"],
            json!([
                {"index": 0, "role": "user", "text": "Wake me at 7"},
                {"index": 1, "role": "assistant", "text": "Done.",
                 "apis": [{"request": {"api_name": "AddAlarm", "parameters": {"time": "07:00:00"}}}]}
            ])
        );
        let dangling = [
            DraftTurn::User("hi".into()),
            DraftTurn::Call {
                api_name: "AddAlarm".into(),
                parameters: Map::new(),
            },
        ];
        assert!(ToolTalkDrafting.dialogue_text(&job, &dangling).is_err());
    }
}
