//! A conversation in which the assistant calls tools by function calling
//! (the tools offered in the request, `tool_calls` in its replies, each
//! result sent back as a tool message) while a simulated user, who hears
//! only what the assistant says to it, answers in turn. The assistant
//! opens with a greeting; while its message makes calls they run and it
//! is asked again; its first message without calls goes to the user. The
//! conversation ends when the user says one of its stop signals, the
//! assistant says its own, at a bound of steps (messages, a message's
//! tool results counting as one), or at a bound of calls that raised.
//!
//! Who the user is and where calls run are the caller's ([`Simulator`],
//! [`super::User`]); the assistant is any [`Answerer`].

use serde_json::{Map, Value};

use super::{Message as Said, Speaker, Turn as UserTurn, User};
use crate::run::answer::{Answerer, Asked, Chat, Key, Message, Reported};

/// Where the assistant's calls run.
pub trait Simulator {
    /// Run one call: the text the assistant is handed, and whether the
    /// call raised.
    fn call(&mut self, name: &str, arguments: &Map<String, Value>) -> (String, bool);
}

/// One call the assistant made.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments (empty when what the model wrote is no JSON object).
    pub arguments: Map<String, Value>,
    /// The arguments as the model wrote them.
    pub raw: String,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    User(String),
    Assistant {
        text: Option<String>,
        calls: Vec<ToolCall>,
    },
    /// A call's result, handed to the assistant.
    Tool {
        id: String,
        content: String,
        error: bool,
    },
}

/// Why a conversation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The assistant said its stop signal.
    AssistantStop,
    /// The user said one of its stop signals.
    UserStop,
    MaxSteps,
    TooManyErrors,
}

/// What a conversation is held with besides its players.
pub struct Setting<'a> {
    /// The assistant's system prompt.
    pub system: &'a str,
    /// The tools offered, as chat-completions function specs.
    pub tools: &'a [Value],
    /// What the assistant says first.
    pub greeting: &'a str,
    /// Words that end the conversation when the user's message holds one.
    pub user_stops: &'a [&'a str],
    /// Words that end it when the assistant's message holds them.
    pub assistant_stop: &'a str,
    /// The conversation stops after this many messages.
    pub max_steps: usize,
    /// It stops at this many calls that raised.
    pub max_errors: usize,
    /// The unit's name in the assistant's request keys.
    pub unit: &'a str,
}

/// What a conversation came to.
#[derive(Debug, Clone)]
pub struct Conversation {
    pub steps: Vec<Step>,
    pub ending: Ending,
    /// The models the server said played the assistant and the user.
    pub assistant_models: Vec<String>,
    pub user_models: Vec<String>,
}

/// Hold one conversation; an error is a request that got no answer.
pub fn converse(
    setting: &Setting<'_>,
    assistant: &dyn Answerer,
    user: &mut dyn User,
    simulator: &mut dyn Simulator,
) -> Result<Conversation, String> {
    let mut steps = vec![Step::Assistant {
        text: Some(setting.greeting.to_string()),
        calls: Vec::new(),
    }];
    let mut reported = Reported::default();
    let mut errors = 0;
    let mut asked = 0;
    // Steps taken: messages, a message's tool results counting as one.
    let mut taken = 1;
    let ending = loop {
        if taken >= setting.max_steps {
            break Ending::MaxSteps;
        }
        // The user's turn: the assistant has just spoken to it.
        let UserTurn::Says(text) = user.reply(&heard(&steps), (0, 1))? else {
            break Ending::UserStop;
        };
        let stops = setting.user_stops.iter().any(|s| text.contains(s));
        steps.push(Step::User(text));
        taken += 1;
        if stops {
            break Ending::UserStop;
        }
        // The assistant's turn: calls until it speaks.
        let ended = loop {
            if taken >= setting.max_steps {
                break Some(Ending::MaxSteps);
            }
            let key = Key {
                unit: setting.unit.to_string(),
                position: steps.len(),
                occurrence: 0,
                asked: Asked::Next,
            };
            let chat = || Chat {
                messages: chat(setting.system, &steps),
                tools: setting.tools.to_vec(),
            };
            let answer = super::ask(assistant, &mut reported, (key, asked, None), chat)?;
            asked += 1;
            let calls: Vec<ToolCall> = answer
                .calls
                .iter()
                .enumerate()
                .map(|(i, c)| ToolCall {
                    id: c
                        .id
                        .clone()
                        .unwrap_or_else(|| format!("call_{}_{i}", steps.len())),
                    name: c.name.clone(),
                    arguments: c.arguments.clone().unwrap_or_default(),
                    raw: c.raw.clone().unwrap_or_else(|| "{}".into()),
                })
                .collect();
            let text = Some(answer.text.clone()).filter(|t| !t.is_empty());
            let stops = text
                .as_deref()
                .is_some_and(|t| t.contains(setting.assistant_stop));
            steps.push(Step::Assistant {
                text,
                calls: calls.clone(),
            });
            taken += 1;
            if stops {
                break Some(Ending::AssistantStop);
            }
            if calls.is_empty() {
                break None;
            }
            for call in &calls {
                let (content, error) = if answer_arguments_read(&call.raw) {
                    simulator.call(&call.name, &call.arguments)
                } else {
                    (
                        format!("Error: the arguments are no JSON object: {}", call.raw),
                        true,
                    )
                };
                errors += usize::from(error);
                steps.push(Step::Tool {
                    id: call.id.clone(),
                    content,
                    error,
                });
            }
            taken += 1;
            if errors >= setting.max_errors {
                break Some(Ending::TooManyErrors);
            }
        };
        if let Some(ending) = ended {
            break ending;
        }
    };
    Ok(Conversation {
        steps,
        ending,
        assistant_models: reported.models(),
        user_models: user.models(),
    })
}

/// Whether a call's arguments as written are a JSON object (an empty
/// text reads as none given).
fn answer_arguments_read(raw: &str) -> bool {
    raw.trim().is_empty() || matches!(serde_json::from_str(raw), Ok(Value::Object(_)))
}

/// What the user has heard: the assistant's words to it, and its own.
fn heard(steps: &[Step]) -> Vec<Said> {
    steps
        .iter()
        .filter_map(|step| match step {
            Step::User(text) => Some(Said {
                from: Speaker::User,
                text: text.clone(),
            }),
            Step::Assistant {
                text: Some(text),
                calls,
            } if calls.is_empty() => Some(Said {
                from: Speaker::Assistant,
                text: text.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// The chat the assistant's model is sent.
fn chat(system: &str, steps: &[Step]) -> Vec<Message> {
    let mut out = vec![Message::System(system.trim_end().to_string())];
    for step in steps {
        out.push(match step {
            Step::User(text) => Message::User(text.clone()),
            Step::Assistant { text, calls } if calls.is_empty() => {
                Message::Assistant(text.clone().unwrap_or_default())
            }
            Step::Assistant { text, calls } => Message::Calls {
                text: text.clone(),
                calls: calls
                    .iter()
                    .map(|c| (c.id.clone(), c.name.clone(), c.raw.clone()))
                    .collect(),
            },
            Step::Tool { id, content, .. } => Message::Result {
                id: id.clone(),
                content: content.clone(),
            },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::answer::{Answer, Call, Request};
    use std::sync::Mutex;

    /// Answers from a script, one a request.
    struct Script(Mutex<Vec<Answer>>);

    impl Answerer for Script {
        fn name(&self) -> String {
            "script".into()
        }
        fn answer(&self, _: &Request<'_>) -> crate::Result<Answer> {
            Ok(self.0.lock().unwrap().remove(0))
        }
    }

    struct Says(Vec<&'static str>);

    impl User for Says {
        fn reply(&mut self, _: &[Said], _: (usize, usize)) -> Result<UserTurn, String> {
            Ok(UserTurn::Says(self.0.remove(0).to_string()))
        }
    }

    /// Every call raises.
    struct Raises;

    impl Simulator for Raises {
        fn call(&mut self, name: &str, _: &Map<String, Value>) -> (String, bool) {
            (format!("Error: {name} failed"), true)
        }
    }

    fn call(name: &str) -> Answer {
        Answer {
            calls: vec![Call {
                name: name.into(),
                arguments: Some(Map::new()),
                raw: Some("{}".into()),
                id: None,
                metadata: None,
            }],
            ..Answer::default()
        }
    }

    fn setting(max_errors: usize) -> Setting<'static> {
        bounded(50, max_errors)
    }

    fn bounded(max_steps: usize, max_errors: usize) -> Setting<'static> {
        Setting {
            system: "Help.",
            tools: &[],
            greeting: "Hi!",
            user_stops: &["###STOP###"],
            assistant_stop: "###STOP###",
            max_steps,
            max_errors,
            unit: "t",
        }
    }

    #[test]
    fn calls_run_until_the_assistant_speaks_and_the_user_stops() {
        let assistant = Script(Mutex::new(vec![call("a"), Answer::text("Done.")]));
        let mut user = Says(vec!["Please do it.", "Thanks ###STOP###"]);
        let talk = converse(&setting(10), &assistant, &mut user, &mut Raises).unwrap();
        assert_eq!(talk.ending, Ending::UserStop);
        // Greeting, user, call, result, words, user.
        assert_eq!(talk.steps.len(), 6);
        assert!(matches!(&talk.steps[3], Step::Tool { error: true, id, .. } if id == "call_2_0"));
        let sent = chat("Help.", &talk.steps);
        assert_eq!(sent[3].to_json()["tool_calls"][0]["function"]["name"], "a");
        assert_eq!(sent[4].to_json()["role"], "tool");
    }

    #[test]
    fn the_conversation_stops_at_the_bound_of_calls_that_raised() {
        let assistant = Script(Mutex::new(vec![call("a"), call("b"), call("c")]));
        let mut user = Says(vec!["Go."]);
        let talk = converse(&setting(2), &assistant, &mut user, &mut Raises).unwrap();
        assert_eq!(talk.ending, Ending::TooManyErrors);
        let raised = talk
            .steps
            .iter()
            .filter(|s| matches!(s, Step::Tool { error: true, .. }))
            .count();
        assert_eq!(raised, 2);
    }

    #[test]
    fn a_batch_of_tool_results_is_one_step_and_the_step_bound_stops_the_conversation() {
        let two = Answer {
            calls: [call("a").calls, call("b").calls].concat(),
            ..Answer::default()
        };
        let assistant = Script(Mutex::new(vec![two, call("c")]));
        let mut user = Says(vec!["Go."]);
        // Greeting, user, two calls, their results: four steps.
        let talk = converse(&bounded(4, 10), &assistant, &mut user, &mut Raises).unwrap();
        assert_eq!(talk.ending, Ending::MaxSteps);
        assert_eq!(talk.steps.len(), 5);
    }
}
