//! Who plays the user: a model given the suite's brief as its system
//! prompt (what the user wants and knows, and to answer only what it is
//! asked), or a person at the terminal shown the same brief.
//!
//! Either one hears only what the assistant says to the user: its calls
//! and their results stay between the assistant and the tools.

use std::io::Write;

use super::{Message, Speaker};
use crate::run::answer::llm::Llm;
use crate::run::answer::{Asked, Chat, Key, Message as Said, Reported};
use crate::suite::interactive::Scenario;

/// The user's next turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    Says(String),
    /// The user ends the conversation (a person typed `/quit` or closed
    /// the input).
    Leaves,
}

/// Whoever plays the user.
pub trait User: Send {
    /// The user's next turn, the assistant having just answered.
    /// `progress` is (goals met, goals): for API-Bank, ground-truth calls
    /// made of those the scenario lists.
    fn reply(&mut self, transcript: &[Message], progress: (usize, usize)) -> Result<Turn, String>;

    /// The models the server said answered (none for a person).
    fn models(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A model plays the user.
pub struct LlmUser<'a> {
    model: &'a Llm,
    system: String,
    reported: Reported,
}

/// The name of the simulated user's prompt template, and its text
/// (provenance records its hash).
impl<'a> LlmUser<'a> {
    /// A user played by `model` with `system` (the suite's brief for a
    /// model) as its system prompt.
    pub fn new(model: &'a Llm, system: String) -> Self {
        LlmUser {
            model,
            system,
            reported: Reported::default(),
        }
    }
}

/// The messages the user's model is sent: it is the user, so the
/// assistant's words reach it as the other side's.
pub fn messages(system: &str, transcript: &[Message]) -> Vec<Said> {
    let mut out = vec![Said::System(system.to_string())];
    for message in transcript {
        match message.from {
            Speaker::User => out.push(Said::Assistant(message.text.clone())),
            Speaker::Assistant => out.push(Said::User(message.text.clone())),
            Speaker::Call | Speaker::Api => {}
        }
    }
    out
}

impl User for LlmUser<'_> {
    fn reply(&mut self, transcript: &[Message], _: (usize, usize)) -> Result<Turn, String> {
        let key = Key {
            unit: String::new(),
            position: transcript.len(),
            occurrence: 0,
            asked: Asked::Reply,
        };
        let chat = || Chat {
            messages: messages(&self.system, transcript),
            tools: Vec::new(),
        };
        let answer = super::ask(self.model, &mut self.reported, (key, 0, None), chat)?;
        Ok(Turn::Says(answer.text.trim().to_string()))
    }

    fn models(&self) -> Vec<String> {
        self.reported.models()
    }
}

/// Reads one line into the buffer (as `BufRead::read_line`: 0 at the end
/// of the input). Standard input is read with `Stdin::read_line`, whose
/// buffer outlives each scenario, so piped lines are never lost between
/// scenarios.
pub type ReadLine = Box<dyn FnMut(&mut String) -> std::io::Result<usize> + Send>;

/// A person plays the user: the assistant's words are written to `output`
/// and the person's read from `input`, a line a turn. An empty line is
/// asked for again; `/quit` or the end of the input ends the conversation.
pub struct HumanUser<W> {
    input: ReadLine,
    output: W,
    shown: usize,
    /// Write each line read after its prompt (input that is not typed at
    /// a terminal, so that the conversation reads whole).
    echo: bool,
}

impl<W: Write + Send> HumanUser<W> {
    /// Shows the person the scenario: its scene (and name, when they
    /// differ), what they know, and the first utterance, said for them;
    /// `echo` writes each line read after its prompt (for input that is
    /// piped in rather than typed).
    pub fn new(
        input: ReadLine,
        mut output: W,
        scenario: &Scenario,
        echo: bool,
    ) -> Result<Self, String> {
        let write = |output: &mut W| -> std::io::Result<()> {
            match scenario.name == scenario.scene {
                true => writeln!(output, "== {}", scenario.scene)?,
                false => writeln!(output, "== {} ({})", scenario.scene, scenario.name)?,
            }
            writeln!(output, "What you know (tell it when asked):")?;
            for line in scenario.knows.lines() {
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
            echo,
        })
    }
}

impl<W: Write + Send> User for HumanUser<W> {
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
            "[{} of {} goals met; /quit ends the scenario]",
            progress.0, progress.1
        )
        .map_err(io)?;
        loop {
            write!(self.output, "you> ").map_err(io)?;
            self.output.flush().map_err(io)?;
            let mut line = String::new();
            if (self.input)(&mut line).map_err(io)? == 0 {
                return Ok(Turn::Leaves);
            }
            if self.echo {
                write!(self.output, "{line}").map_err(io)?;
                if !line.ends_with('\n') {
                    writeln!(self.output).map_err(io)?;
                }
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

#[cfg(test)]
mod tests {
    use std::io::BufRead;
    use std::sync::{Arc, Mutex};

    use super::*;

    fn scenario(name: &str) -> Scenario {
        Scenario {
            name: name.into(),
            scene: "Alarm".into(),
            first_utterance: "Wake me up.".into(),
            knows: "username Ann".into(),
            dialogue: crate::dialogue::Conversation {
                name: String::new(),
                conversation_id: String::new(),
                suites_used: Vec::new(),
                apis_used: Vec::new(),
                scenario: None,
                user: Default::default(),
                metadata: Default::default(),
                conversation: Vec::new(),
                errata: Vec::new(),
            },
        }
    }

    /// Writes into a buffer the test reads afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn said(from: Speaker, text: &str) -> Message {
        Message {
            from,
            text: text.into(),
        }
    }

    #[test]
    fn a_person_reads_the_assistant_and_types_a_line_a_turn() {
        let mut input = std::io::Cursor::new(b"\n  Ann  \n/quit\nnever read\n".to_vec());
        let output = Shared::default();
        let mut user = HumanUser::new(
            Box::new(move |line: &mut String| input.read_line(line)),
            output.clone(),
            &scenario("Alarm"),
            false,
        )
        .unwrap();
        let mut transcript = vec![
            said(Speaker::User, "Wake me up."),
            said(Speaker::Call, "[ToolSearcher(keywords='alarm')]"),
            said(Speaker::Api, "{...}"),
            said(Speaker::Assistant, "Your username?"),
        ];
        // The blank line is asked for again.
        assert_eq!(
            user.reply(&transcript, (0, 1)).unwrap(),
            Turn::Says("Ann".into())
        );
        transcript.push(said(Speaker::User, "Ann"));
        transcript.push(said(Speaker::Assistant, "And the time?"));
        assert_eq!(user.reply(&transcript, (0, 1)).unwrap(), Turn::Leaves);
        let shown = String::from_utf8(output.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            shown,
            "== Alarm\nWhat you know (tell it when asked):\n  username Ann\nyou> Wake me up.\n\
             assistant> Your username?\n[0 of 1 goals met; /quit ends the scenario]\nyou> you> \
             assistant> And the time?\n[0 of 1 goals met; /quit ends the scenario]\nyou> "
        );
        // The end of the input leaves too; a scene is shown with its
        // scenario's name when they differ.
        let output = Shared::default();
        let mut empty = HumanUser::new(
            Box::new(|_: &mut String| Ok(0)),
            output.clone(),
            &scenario("alarm-2"),
            true,
        )
        .unwrap();
        assert_eq!(empty.reply(&transcript, (0, 1)).unwrap(), Turn::Leaves);
        let shown = String::from_utf8(output.0.lock().unwrap().clone()).unwrap();
        assert!(shown.starts_with("== Alarm (alarm-2)\n"), "{shown}");
    }

    #[test]
    fn the_simulated_user_hears_the_assistant_as_the_other_side() {
        let transcript = vec![
            said(Speaker::User, "Wake me up."),
            said(Speaker::Call, "[GetToday()]"),
            said(Speaker::Api, "\"2023-03-31\""),
            said(Speaker::Assistant, "When?"),
        ];
        assert_eq!(
            messages("brief", &transcript),
            [
                Said::System("brief".into()),
                Said::Assistant("Wake me up.".into()),
                Said::User("When?".into())
            ]
        );
        assert_eq!(
            super::super::assistant::messages("system", &transcript),
            [
                Said::System("system".into()),
                Said::User("(User) Wake me up.".into()),
                Said::Assistant("[GetToday()]".into()),
                Said::User("(API) \"2023-03-31\"".into()),
                Said::Assistant("When?".into()),
            ]
        );
    }
}
