//! Who plays the user: a model given the scenario's first utterance and
//! key information, told to answer only what it is asked (our own prompt,
//! `prompts/apibank-level3-user.j2`), or a person at the terminal.
//!
//! Either one hears only what the assistant says to the user: its calls
//! and their results stay between the assistant and the APIs.

use std::io::{BufRead, Write};
use std::sync::Arc;

use super::chat::{ChatModel, Role};
use super::run::{Message, Speaker};
use super::Scenario;

const USER_PROMPT: &str = include_str!("../../../../prompts/apibank-level3-user.j2");

/// What the user does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    Says(String),
    /// The user ends the conversation (a person typed `/quit` or closed
    /// the input).
    Leaves,
}

/// Whoever plays the user.
pub trait User: Send {
    /// Its name in reports.
    fn name(&self) -> String;

    /// The user's next turn, the assistant having just answered.
    /// `progress` is (ground-truth calls made, ground-truth calls).
    fn reply(
        &mut self,
        transcript: &[Message],
        progress: (usize, usize),
    ) -> Result<Turn, String>;
}

/// A model plays the user.
pub struct LlmUser {
    model: Arc<ChatModel>,
    system: String,
}

impl LlmUser {
    pub fn new(model: Arc<ChatModel>, scenario: &Scenario) -> Result<Self, String> {
        Ok(LlmUser {
            model,
            system: system_prompt(scenario)?,
        })
    }
}

/// The simulated user's instructions for `scenario`.
pub fn system_prompt(scenario: &Scenario) -> Result<String, String> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.set_keep_trailing_newline(false);
    env.render_str(
        USER_PROMPT,
        minijinja::context! {
            scene => scenario.scene,
            first_utterance => scenario.first_utterance,
            key_info => scenario.key_info,
        },
    )
    .map_err(|e| format!("prompts/apibank-level3-user.j2: {e}"))
}

/// The messages the simulated user's model is sent: the roles turned
/// round (the assistant's words are what it hears, its own earlier words
/// are its answers), calls and results left out.
pub fn messages(system: &str, transcript: &[Message]) -> Vec<(Role, String)> {
    let mut out = vec![(Role::System, system.to_string())];
    for message in transcript {
        match message.from {
            Speaker::User => out.push((Role::Assistant, message.text.clone())),
            Speaker::Assistant => out.push((Role::User, message.text.clone())),
            Speaker::Call | Speaker::Api => {}
        }
    }
    out
}

impl User for LlmUser {
    fn name(&self) -> String {
        format!("llm:{}", self.model.model())
    }

    fn reply(&mut self, transcript: &[Message], _: (usize, usize)) -> Result<Turn, String> {
        let text = self.model.reply(&messages(&self.system, transcript))?;
        Ok(Turn::Says(text.trim().to_string()))
    }
}

/// A person plays the user: the assistant's words are written to `output`
/// and the person's read from `input`, a line a turn. An empty line is
/// asked for again; `/quit` or the end of the input ends the conversation.
pub struct HumanUser<R, W> {
    input: R,
    output: W,
    shown: usize,
}

impl<R: BufRead + Send, W: Write + Send> HumanUser<R, W> {
    /// Shows the person the scenario: the scene, what they know, and the
    /// first utterance, said for them.
    pub fn new(input: R, mut output: W, scenario: &Scenario) -> Result<Self, String> {
        let write = |output: &mut W| -> std::io::Result<()> {
            writeln!(output, "== {} ({})", scenario.scene, scenario.name)?;
            writeln!(output, "What you know (tell it when asked):")?;
            for line in scenario.key_info.lines() {
                writeln!(output, "  {line}")?;
            }
            writeln!(output, "you> {}", scenario.first_utterance)?;
            output.flush()
        };
        write(&mut output).map_err(|e| format!("cannot write to the terminal: {e}"))?;
        Ok(HumanUser {
            input,
            output,
            // The first utterance is shown already.
            shown: 1,
        })
    }
}

impl<R: BufRead + Send, W: Write + Send> User for HumanUser<R, W> {
    fn name(&self) -> String {
        "human".into()
    }

    fn reply(&mut self, transcript: &[Message], progress: (usize, usize)) -> Result<Turn, String> {
        let io = |e: std::io::Error| format!("the terminal: {e}");
        for message in &transcript[self.shown.min(transcript.len())..] {
            if message.from == Speaker::Assistant {
                writeln!(self.output, "assistant> {}", message.text).map_err(io)?;
            }
        }
        self.shown = transcript.len();
        writeln!(
            self.output,
            "[{} of {} ground-truth calls made; /quit ends the scenario]",
            progress.0, progress.1
        )
        .map_err(io)?;
        loop {
            write!(self.output, "you> ").map_err(io)?;
            self.output.flush().map_err(io)?;
            let mut line = String::new();
            if self.input.read_line(&mut line).map_err(io)? == 0 {
                return Ok(Turn::Leaves);
            }
            let line = line.trim();
            if line == "/quit" {
                return Ok(Turn::Leaves);
            }
            if !line.is_empty() {
                self.shown += 1;
                return Ok(Turn::Says(line.to_string()));
            }
        }
    }
}
