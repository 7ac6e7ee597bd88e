//! The two scorings of a call sample (`--scoring reference|lenient`) and
//! how a call is read out of a model's text under each.
//!
//! The reference scoring is api-bank's evaluator verdict for verdict: its
//! regular expressions read the text ([`super::reference_parse`]), its
//! `ToolManager` converts the arguments, and each API's
//! `check_api_call_correctness` decides, quirks and all. The lenient
//! scoring is the same but for the [`Correction`]s, each undoing one
//! defect of the reference's scoring. They apply in a chain, in the order
//! of [`Correction::CHAIN`]: every sample is scored after each step, and a
//! sample whose two verdicts differ names the corrections at whose step
//! its verdict changed.

use serde::{Deserialize, Serialize};

use serde_json::Value;

use super::super::world::ApiBankWorld;
use super::predict::CallAnswer;
use super::reference_parse;
use super::score::{score_call, Cause, Predicted, Verdict};
use crate::formats::call_text::{parse_api_request, ParseFailure};
use crate::suite::levels::Scoring;

/// One defect of the reference's scoring that the lenient scoring
/// corrects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Correction {
    /// The call is found where it stands as written: with spaces inside
    /// the brackets or before the parenthesis, line breaks inside, without
    /// its square brackets, and ending at its own closing parenthesis
    /// rather than at the last `)]` of the line.
    CallLayout,
    /// Arguments are read as written: a quoted value ends at its own
    /// closing quote (so it is not cut at a quote of the other kind inside
    /// it, and mismatched quotes are no value), escapes count, an empty
    /// value is empty, an unquoted value (a number, a date, a list, a dict,
    /// even words) is read whole up to the comma or parenthesis that ends
    /// it; an argument that cannot be read (a positional one, one without
    /// a value) or a name given twice makes the call unreadable instead of
    /// being dropped or overwritten.
    ArgumentValues,
    /// A list argument given as the text of a list (`attendees="['Ann',
    /// 'Bo']"`, or bare) is the list, where the reference's `ToolManager`
    /// hands the API the text.
    ListText,
    /// The timed switches' device is taken as the dialogues (and the
    /// documentation talkforge shows) name it, `device_id`, as well as by
    /// the code's `name`, and checked against the gold call's `device_id`:
    /// the reference refuses `device_id` and then looks for `name` in the
    /// gold call, so no call of these APIs can be right.
    DeviceName,
    /// DeleteMeeting's check compares the meetings' `start_time` where the
    /// reference's reads a `time` its input does not have (a `KeyError`:
    /// no successful deletion can be right).
    DeleteMeetingTime,
    /// Every sample is checked against the gold call as recorded: the
    /// reference's meeting checks delete `meeting_topic` from the gold
    /// result they are handed, and a line's second sample is handed the
    /// same dict, so it always fails.
    GoldKept,
}

impl Correction {
    /// Every correction, in the order the chain applies them.
    pub const CHAIN: [Correction; 6] = [
        Correction::CallLayout,
        Correction::ArgumentValues,
        Correction::ListText,
        Correction::DeviceName,
        Correction::DeleteMeetingTime,
        Correction::GoldKept,
    ];
}

/// The corrections a scoring applies: a first part of the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corrections(&'static [Correction]);

impl Corrections {
    /// The reference's scoring.
    pub const NONE: Corrections = Corrections(&[]);
    /// The lenient scoring.
    pub const ALL: Corrections = Corrections(&Correction::CHAIN);

    pub fn has(self, correction: Correction) -> bool {
        self.0.contains(&correction)
    }

    /// The steps of the chain: none, the first, the first two, ..., all.
    pub fn chain() -> impl Iterator<Item = Corrections> {
        (0..=Correction::CHAIN.len()).map(|n| Corrections(&Correction::CHAIN[..n]))
    }

    /// The correction this step added to the one before it.
    pub fn added(self) -> Option<Correction> {
        self.0.last().copied()
    }
}

/// Why a sample's two verdicts differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoringDifference {
    /// The corrections at whose step of the chain the verdict changed.
    pub corrections: Vec<Correction>,
    /// The reference scoring's reason (null when it finds the call right).
    pub reference: Option<String>,
    /// The lenient scoring's reason (null when it finds the call right).
    pub lenient: Option<String>,
}

/// A sample scored at every step of the chain.
#[derive(Debug, Clone)]
pub struct Judged {
    /// The verdict of the scoring asked for.
    pub chosen: Verdict,
    pub correct_reference: bool,
    pub correct_lenient: bool,
    /// Present when the two verdicts differ.
    pub difference: Option<ScoringDifference>,
}

/// Judge `answer` to a call sample whose gold call is of `gold_api`:
/// read and run in a copy of `world` at each step of
/// [`Corrections::chain`], each step against its own copy of the gold
/// line's result (see [`score_call`]). A call made as a tool call is taken
/// as made.
pub fn judge(
    answer: &CallAnswer,
    gold_api: &str,
    gold_results: &mut [Value],
    world: &ApiBankWorld,
    scoring: Scoring,
) -> Judged {
    let steps = Corrections::chain().zip(gold_results);
    let verdicts = steps.map(|(corrections, gold_result)| {
        let predicted = match &answer.function {
            Some(function) => Ok(function.clone()),
            None => read_call(&answer.raw, corrections),
        };
        match predicted {
            Ok(predicted) => score_call(
                predicted,
                gold_api,
                gold_result,
                &mut world.clone(),
                corrections,
            ),
            Err((cause, reason)) => Verdict::wrong(cause, reason, None),
        }
    });
    judged(verdicts.collect(), scoring)
}

/// Judge a sample from its verdicts at each step of
/// [`Corrections::chain`], in order.
fn judged(mut verdicts: Vec<Verdict>, scoring: Scoring) -> Judged {
    let (reference, lenient) = (&verdicts[0], &verdicts[Correction::CHAIN.len()]);
    let difference = (reference.correct != lenient.correct).then(|| ScoringDifference {
        corrections: (verdicts.windows(2).zip(Correction::CHAIN))
            .filter(|(pair, _)| pair[0].correct != pair[1].correct)
            .map(|(_, correction)| correction)
            .collect(),
        reference: reference.reason.clone(),
        lenient: lenient.reason.clone(),
    });
    let (correct_reference, correct_lenient) = (reference.correct, lenient.correct);
    let chosen = match scoring {
        Scoring::Reference => verdicts.swap_remove(0),
        Scoring::Lenient => verdicts.pop().expect("the chain has steps"),
    };
    Judged {
        chosen,
        correct_reference,
        correct_lenient,
        difference,
    }
}

/// Read the call out of `text` under `corrections`: the reference's
/// patterns; with [`Correction::CallLayout`], the call where
/// [`call_text`](crate::formats::call_text) finds it (its arguments still
/// read by the reference's pattern); with [`Correction::ArgumentValues`]
/// too, `call_text`'s reading whole.
pub fn read_call(text: &str, corrections: Corrections) -> Result<Predicted, (Cause, String)> {
    let as_written = parse_api_request(text);
    let no_call = || (Cause::NoApiCall, ParseFailure::NoCall.to_string());
    match &as_written {
        Ok(request) if corrections.has(Correction::CallLayout) => {
            let param_dict = if corrections.has(Correction::ArgumentValues) {
                request.param_dict.clone()
            } else {
                // The name holds no parenthesis and nothing follows the
                // closing one but spaces and a bracket.
                let call = &text[request.span.clone()];
                let open = call.find('(').expect("a call has its parenthesis");
                let close = call.rfind(')').expect("a call has its parenthesis");
                reference_parse::read_arguments(&call[open + 1..close])
            };
            return Ok(Predicted::new(&request.api_name, param_dict));
        }
        Err(ParseFailure::NoCall) if corrections.has(Correction::ArgumentValues) => {
            return Err(no_call())
        }
        // Text `call_text` refuses (mismatched quotes, a positional
        // argument, a name given twice) is read as the reference reads
        // it: lenient never reads less than the reference.
        _ => {}
    }
    reference_parse::read(text).ok_or_else(|| match as_written {
        Err(ParseFailure::NoCall) => no_call(),
        _ => (
            Cause::ParseFailure,
            "the reference's pattern finds no call: it reads one only as [ApiName(...)] with nothing between the bracket, the name and the parenthesis, and on one line".into(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    fn read(text: &str, corrections: Corrections) -> Result<(String, Value), Cause> {
        read_call(text, corrections)
            .map(|p| (p.api_name, Value::Object(p.param_dict)))
            .map_err(|(cause, _)| cause)
    }

    fn step(correction: Correction) -> Corrections {
        Corrections::chain()
            .find(|c| c.added() == Some(correction))
            .unwrap()
    }

    #[test]
    fn the_chain_runs_from_the_reference_to_the_lenient_scoring() {
        let steps: Vec<Corrections> = Corrections::chain().collect();
        assert_eq!(steps.first(), Some(&Corrections::NONE));
        assert_eq!(steps.last(), Some(&Corrections::ALL));
        assert_eq!(steps.len(), Correction::CHAIN.len() + 1);
        for (i, correction) in Correction::CHAIN.iter().enumerate() {
            assert_eq!(steps[i + 1].added(), Some(*correction));
            assert!(!steps[i].has(*correction) && steps[i + 1].has(*correction));
        }
        assert_eq!(Corrections::NONE.added(), None);
    }

    #[test]
    fn the_layout_correction_finds_the_call_and_the_references_pattern_reads_its_values() {
        let text = "[ AddReminder(content=\"I'm off\",\n time='2023-03-20 09:00:00') ]";
        assert_eq!(read(text, Corrections::NONE), Err(Cause::ParseFailure));
        let layout = step(Correction::CallLayout);
        assert_eq!(
            read(text, layout),
            Ok((
                "AddReminder".into(),
                json!({"content": "I", "time": "2023-03-20 09:00:00"})
            ))
        );
        assert_eq!(
            read(text, step(Correction::ArgumentValues)),
            Ok((
                "AddReminder".into(),
                json!({"content": "I'm off", "time": "2023-03-20 09:00:00"})
            ))
        );
        // A call without brackets, and the call ending at its own
        // parenthesis where the reference runs on to the line's last `)]`.
        assert_eq!(
            read("QueryAlarm(token='t')", layout).unwrap().0,
            "QueryAlarm"
        );
        let two = "[QueryAlarm(token='a')] [DeleteAlarm(time='b')]";
        assert_eq!(
            read(two, Corrections::NONE).unwrap().1,
            json!({"token": "a", "time": "b"})
        );
        assert_eq!(read(two, layout).unwrap().1, json!({"token": "a"}));
        // Text that call_text cannot read keeps the reference's reading.
        let mismatched = "[GetUserToken(username='JohnDoe\", password='pass123')]";
        assert_eq!(
            read(mismatched, layout).unwrap().1,
            json!({"username": "JohnDoe", "password": "pass123"})
        );
        // ... and so does the lenient reading: it never reads less.
        assert_eq!(
            read(mismatched, step(Correction::ArgumentValues)),
            read(mismatched, layout)
        );
    }

    fn verdict(correct: bool, reason: &str) -> Verdict {
        Verdict {
            correct,
            cause: (!correct).then_some(Cause::WrongArguments),
            reason: (!correct).then(|| reason.to_string()),
            predicted: None,
            result: None,
        }
    }

    #[test]
    fn a_sample_names_the_corrections_at_whose_step_its_verdict_changed() {
        // Wrong, wrong after the layout step, right after the values step,
        // wrong after the list step, right again after the device step.
        let chain = |values: [bool; 7]| -> Vec<Verdict> {
            values
                .iter()
                .enumerate()
                .map(|(i, &c)| verdict(c, &format!("step {i}")))
                .collect()
        };
        let steps = [false, false, true, false, true, true, true];
        let reference = judged(chain(steps), Scoring::Reference);
        assert!(!reference.chosen.correct);
        assert_eq!(reference.chosen.reason.as_deref(), Some("step 0"));
        assert!(!reference.correct_reference && reference.correct_lenient);
        assert_eq!(
            reference.difference,
            Some(ScoringDifference {
                corrections: vec![
                    Correction::ArgumentValues,
                    Correction::ListText,
                    Correction::DeviceName
                ],
                reference: Some("step 0".into()),
                lenient: None,
            })
        );
        let lenient = judged(chain(steps), Scoring::Lenient);
        assert!(lenient.chosen.correct);
        // Verdicts that end where they began differ in nothing.
        let back = judged(
            chain([true, false, true, true, true, true, true]),
            Scoring::Lenient,
        );
        assert_eq!(back.difference, None);
        assert!(back.correct_reference && back.correct_lenient);
    }

    #[test]
    fn text_without_anything_call_shaped_is_no_call_in_both() {
        for corrections in [Corrections::NONE, Corrections::ALL] {
            assert_eq!(
                read("I have set your alarm.", corrections),
                Err(Cause::NoApiCall)
            );
        }
    }
}
