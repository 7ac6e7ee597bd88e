//! Runs scored by samples at a level (API-Bank's levels 1 and 2) side by
//! side, for `talkforge report`: one table of accuracy and ROUGE-L,
//! accuracy per API, the error causes as shares of the wrong samples, and
//! the paper's Table 3 when levels 1 and 2 share a page; the shared
//! sections are [`crate::report::runs`]'.

use std::collections::HashMap;
use std::path::Path;

use indexmap::{IndexMap, IndexSet};
use serde_json::{json, Value};

use super::report::{cause_key, LevelFigures};
use super::run::SampleRecord;
use crate::report::runs::{answered, by_run, chart, per_run, per_unit, Kind, Run, Unit, Words};
use crate::report::{Cell, Chart, Scale, Section, Table};
use crate::run::summary::RunSummary;

/// A level run's folder, as `report` reads it.
pub type LevelRun = Run<LevelFigures>;

/// How the reports name a sample.
pub fn place(s: &SampleRecord) -> String {
    format!(
        "{} {}",
        s.file,
        super::samples::sample_place(s.turn, s.occurrence)
    )
}

/// The models the server reported, or the model asked for.
pub fn model(summary: &RunSummary<LevelFigures>) -> Option<String> {
    let p = summary.provenance.as_ref()?;
    answered(&p.model_requested, &p.models_reported)
}

impl Kind for LevelFigures {
    type Settings = Value;
    const NAME: &'static str = "levels";
    const UNIT: &'static str = "call sample";
    const FILE: &'static str = "dialogue";
    const WHAT: &'static str = "a run scored by samples";
    const WORDS: Words = Words {
        failures: "Wrong samples",
        failed: "wrong",
        failure_columns: &["Sample", "API", "Cause", "Why", "The model wrote"],
        differs: "verdict",
        passed_key: "correct",
        no_state_check: Some("each call sample is one call on fresh databases, and its verdict already compares that call's result"),
        unit_lists: &["per_sample", "dialogue_hashes"],
    };

    /// The predictor and the settings that tell level runs apart.
    fn label(s: &RunSummary<Self>) -> Vec<String> {
        let p: crate::run::answer::Settings =
            serde_json::from_value(s.settings["settings"].clone()).unwrap_or_default();
        let file = p.predictions.as_deref().map(|f| {
            let name = Path::new(f).file_name().unwrap_or_default();
            format!("{}:{}", s.predictor, name.to_string_lossy())
        });
        let mut parts = vec![file.unwrap_or_else(|| s.predictor.clone())];
        parts.extend((p.api_mode.as_deref() == Some("functions")).then(|| "api functions".into()));
        parts.extend((p.no_docs == Some(true)).then(|| "no docs".into()));
        parts.extend(p.temperature.map(|t| format!("T={t}")));
        let templates = s.provenance.iter().flat_map(|p| p.prompt_templates.keys());
        let templates = templates.filter(|name| !name.starts_with("prompts/"));
        parts.extend(templates.map(|name| format!("template {name}")));
        // The run-level settings away from their defaults.
        let setting = |key: &str, default: &str| {
            let value = s.settings[key].as_str();
            value.filter(|v| *v != default).map(str::to_string)
        };
        parts.extend(setting("state", "fresh").map(|v| format!("state {v}")));
        parts.extend(setting("retriever", "lexical").map(|v| format!("retriever {v}")));
        parts.extend(setting("scoring", "reference").map(|v| format!("{v} scoring")));
        parts
    }

    fn models(summary: &RunSummary<Self>) -> Option<String> {
        model(summary)
    }

    fn title(runs: &[LevelRun]) -> String {
        let levels: Vec<String> = levels(runs).iter().map(u8::to_string).collect();
        format!("Runs at level {} compared", levels.join(" and "))
    }

    /// Runs at levels 1 and 2 share a page, each level over its own
    /// dialogues.
    fn dataset_group(run: &LevelRun) -> u8 {
        run.summary.level
    }

    /// Settings, results (with the paper's Table 3 when levels 1 and 2 are
    /// both there), both scorings, error causes and accuracy per API.
    fn tables(runs: &[LevelRun]) -> Vec<Section> {
        let table = per_run(runs, |r| {
            let s = &r.summary;
            vec![
                ("Level", Cell::Count(s.level.into())),
                ("Dialogues", Cell::Count(s.dialogues)),
                ("Call samples", Cell::Count(s.samples)),
                ("Correct", Cell::Count(s.correct)),
                ("API-call accuracy", Cell::Percent(s.accuracy)),
                ("Replies", Cell::Count(s.replies)),
                ("ROUGE-L", Cell::Number(s.rouge_l, 4)),
            ]
        });
        let results = Section::new("results", "Results by run")
            .text("API-call accuracy is correct call samples / call samples, in percent; ROUGE-L is the mean over the reply samples, from 0 to 1.")
            .table(table)
            .charts(charts(runs));
        let mut sections = vec![settings(runs), results, scorings(runs)];
        sections.extend(table3(runs));
        sections.push(causes_section(runs));
        sections.push(per_api(runs));
        sections
    }

    /// Samples are told apart across runs by file, line and occurrence;
    /// a wrong one's row says what the model wrote (from the run's output
    /// files).
    fn units(run: &LevelRun) -> Vec<Unit<'_>> {
        let mut written = written(run);
        let units = run.summary.per_sample.iter().map(|s| Unit {
            key: json!({"file": s.file, "turn": s.turn, "occurrence": s.occurrence, "api_name": s.api_name}),
            name: format!("{} {}", place(s), s.api_name),
            passed: s.correct,
            outcome: verdict(s),
            state: None,
            failure: if s.correct {
                Vec::new()
            } else {
                let why = s.reason.as_deref().unwrap_or("wrong").to_string();
                let why = match &s.known {
                    Some(k) => format!("{why} (known erratum: {})", k.reason),
                    None => why,
                };
                let cause = s.cause.map(|c| cause_label(&cause_key(c)));
                vec![
                    Cell::Code(place(s)),
                    Cell::Text(s.api_name.clone()),
                    Cell::Text(cause.unwrap_or_default()),
                    Cell::Text(why),
                    Cell::Code(written(s).unwrap_or_default()),
                ]
            },
        });
        units.collect()
    }

    fn run_document(r: &LevelRun) -> Value {
        let s = &r.summary;
        let shares: IndexMap<&String, Option<f64>> =
            s.causes.keys().map(|c| (c, cause_share(r, c))).collect();
        json!({
            "model": model(s),
            "cause_shares": shares,
            "wrong": s.per_sample.iter().filter(|x| !x.correct).collect::<Vec<_>>(),
        })
    }

    fn document(runs: &[LevelRun]) -> Value {
        json!({
            "level": runs[0].summary.level,
            "levels": levels(runs),
        })
    }
}

/// A cause's key in words ("no_api_call": "no API call").
pub fn cause_label(key: &str) -> String {
    key.split('_')
        .map(|w| if w == "api" { "API" } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The causes the runs count, in the order first seen.
pub fn causes(runs: &[LevelRun]) -> Vec<String> {
    let keys = runs.iter().flat_map(|r| r.summary.causes.keys().cloned());
    keys.collect::<IndexSet<_>>().into_iter().collect()
}

/// `run`'s wrong samples with `cause`, as a share of its wrong samples.
pub fn cause_share(run: &LevelRun, cause: &str) -> Option<f64> {
    let wrong = run.summary.samples - run.summary.correct;
    let n = run.summary.causes.get(cause).copied().unwrap_or(0);
    (wrong > 0).then(|| n as f64 / wrong as f64)
}

/// The APIs the runs have samples of, most samples first.
pub fn apis(runs: &[LevelRun]) -> Vec<String> {
    let mut counts: IndexMap<&str, usize> = IndexMap::new();
    for run in runs {
        for (name, tally) in &run.summary.by_api {
            let n = counts.entry(name).or_default();
            *n = (*n).max(tally.samples);
        }
    }
    let mut apis: Vec<(&str, usize)> = counts.into_iter().collect();
    apis.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    apis.into_iter().map(|(n, _)| n.to_string()).collect()
}

/// A sample's verdict in words: "right", or "wrong (cause)".
pub fn verdict(s: &SampleRecord) -> String {
    match (s.correct, s.cause) {
        (true, _) => "right".into(),
        (false, Some(cause)) => format!("wrong ({})", cause_label(&cause_key(cause))),
        (false, None) => "wrong".into(),
    }
}

/// What each run was made with.
fn settings(runs: &[LevelRun]) -> Section {
    let table = per_run(runs, |r| {
        let s = &r.summary;
        let setting = |key: &str, default: &str| {
            Cell::Text(s.settings[key].as_str().unwrap_or(default).to_string())
        };
        vec![
            ("Predictor", Cell::Code(s.predictor.clone())),
            ("Start state", setting("state", "fresh")),
            ("Retriever", setting("retriever", "lexical")),
            ("Scoring", Cell::Text(s.scoring.clone())),
            ("Dialogues resumed", Cell::Count(s.resumed)),
        ]
    });
    Section::new("settings", "Settings")
        .text("Each call sample starts from the start state: `fresh` databases, or `replayed`, with the dialogue's earlier gold calls run first. ToolSearcher answers a dialogue's recorded searches as recorded, and others with the retriever. A resumed dialogue was taken from an earlier run with the same settings and inputs.")
        .table(table)
}

/// Both scorings' figures per run, and the samples they judge
/// differently with the corrections that changed each.
fn scorings(runs: &[LevelRun]) -> Section {
    let title = "Reference and lenient scoring";
    let table = per_run(runs, |r| {
        let s = &r.summary;
        vec![
            ("Figures follow", Cell::Text(s.scoring.clone())),
            ("Reference", Cell::Fraction(s.correct_reference, s.samples)),
            ("Lenient", Cell::Fraction(s.correct_lenient, s.samples)),
        ]
    });
    let heads = [
        "Sample",
        "API",
        "Reference",
        "Lenient",
        "Corrections",
        "Reference's reason",
        "Lenient's reason",
    ];
    let verdict = |correct: bool| Cell::Text(if correct { "right" } else { "wrong" }.into());
    let differing = by_run(runs, &heads, |run| {
        let samples = run.summary.per_sample.iter();
        samples.filter_map(|sample| {
            let d = sample.scoring_difference.as_ref()?;
            let corrections: Vec<String> = d
                .corrections
                .iter()
                .map(|c| {
                    let name = serde_json::to_value(c).unwrap_or_default();
                    name.as_str().unwrap_or_default().to_string()
                })
                .collect();
            Some(vec![
                Cell::Code(place(sample)),
                Cell::Text(sample.api_name.clone()),
                verdict(sample.correct_reference),
                verdict(sample.correct_lenient),
                Cell::Code(corrections.join(", ")),
                Cell::Text(d.reference.clone().unwrap_or_default()),
                Cell::Text(d.lenient.clone().unwrap_or_default()),
            ])
        })
    });
    let section = Section::new("scoring", title)
        .text("API-call accuracy under both scorings, in percent (correct/samples): `reference` is api-bank's evaluator verdict for verdict; `lenient` reads calls as models write them and corrects the reference's known scoring defects (the README lists the corrections). `--scoring` picks the one the other figures follow.")
        .table(table);
    if differing.rows.is_empty() {
        return section.text("The two scorings agree on every sample.");
    }
    section
        .text("The samples the two scorings judge differently, with the corrections at whose step the verdict changed:")
        .table(differing)
}

/// The levels of `runs`, in order.
fn levels(runs: &[LevelRun]) -> Vec<u8> {
    let mut levels: Vec<u8> = runs.iter().map(|r| r.summary.level).collect();
    levels.sort_unstable();
    levels.dedup();
    levels
}

/// The paper's Table 3 row per model: accuracy and ROUGE-L at levels 1
/// and 2, for a report that holds runs at both.
fn table3(runs: &[LevelRun]) -> Option<Section> {
    if levels(runs) != [1, 2] {
        return None;
    }
    let heads = [
        "Model",
        "Call (level 1)",
        "Retrieve+Call (level 2)",
        "ROUGE-L (level 1)",
        "ROUGE-L (level 2)",
    ];
    let model_of = |r: &LevelRun| model(&r.summary).unwrap_or_else(|| r.summary.predictor.clone());
    let models: IndexSet<String> = runs.iter().map(model_of).collect();
    let rows = models.into_iter().map(|model| {
        let at = |level: u8| {
            runs.iter()
                .find(|r| r.summary.level == level && model_of(r) == model)
        };
        let accuracy = |level| Cell::Percent(at(level).and_then(|r| r.summary.accuracy));
        let rouge = |level| Cell::Number(at(level).and_then(|r| r.summary.rouge_l), 4);
        vec![
            Cell::Text(model.clone()),
            accuracy(1),
            accuracy(2),
            rouge(1),
            rouge(2),
        ]
    });
    let table = Table::of(&heads, rows.collect());
    Some(
        Section::new("table-3", "API-Bank's Table 3")
            .text("Per model, its first run at each level: API-call accuracy in percent, and ROUGE-L of the replies.")
            .table(table),
    )
}

fn causes_section(runs: &[LevelRun]) -> Section {
    let causes = causes(runs);
    let heads: Vec<String> = std::iter::once("Wrong".to_string())
        .chain(causes.iter().map(|c| cause_label(c)))
        .collect();
    let table = by_run(runs, &heads, |run| {
        let wrong = run.summary.samples - run.summary.correct;
        let count = |c: &String| run.summary.causes.get(c).copied().unwrap_or(0);
        let shares = causes.iter().map(|c| Cell::Fraction(count(c), wrong));
        [std::iter::once(Cell::Count(wrong)).chain(shares).collect()]
    });
    Section::new("causes", "Error causes by run")
        .text("Each cause's share of the run's wrong samples, in percent (count/wrong).")
        .table(table)
}

fn per_api(runs: &[LevelRun]) -> Section {
    let rows = apis(runs).into_iter().map(|api| {
        let shares = runs.iter().map(|r| match r.summary.by_api.get(&api) {
            Some(t) => Cell::Fraction(t.correct, t.samples),
            None => Cell::Percent(None),
        });
        (Cell::Text(api.clone()), shares.collect::<Vec<_>>())
    });
    Section::new("per-api", "API-call accuracy per API")
        .text("In percent (correct/samples).")
        .table(per_unit("API", runs.len(), rows))
}

/// APIs shown in the per-API chart, at most (those with most samples).
const CHART_APIS: usize = 40;

fn charts(runs: &[LevelRun]) -> Vec<Chart> {
    let one = |name: &str| vec![name.to_string()];
    let mut charts = vec![
        chart(
            runs,
            "API-call accuracy per run",
            one("API-call accuracy"),
            Scale::Percent,
            |r, _| {
                let s = &runs[r].summary;
                (s.accuracy, Some(s.samples))
            },
        ),
        chart(
            runs,
            "ROUGE-L of the replies per run",
            one("ROUGE-L"),
            Scale::Plain,
            |r, _| (runs[r].summary.rouge_l, Some(runs[r].summary.replies)),
        ),
    ];
    let mut names = apis(runs);
    names.truncate(CHART_APIS);
    if !names.is_empty() {
        charts.push(chart(
            runs,
            "API-call accuracy by API",
            names.clone(),
            Scale::Percent,
            |r, i| {
                let tally = runs[r].summary.by_api.get(&names[i]);
                let share = tally.filter(|t| t.samples > 0);
                (
                    share.map(|t| t.correct as f64 / t.samples as f64),
                    tally.map(|t| t.samples),
                )
            },
        ));
    }
    let keys = causes(runs);
    let labels = keys.iter().map(|k| cause_label(k)).collect();
    charts.push(chart(
        runs,
        "Error causes per run (share of the wrong samples)",
        labels,
        Scale::Percent,
        |r, i| {
            let n = runs[r].summary.causes.get(&keys[i]).copied().unwrap_or(0);
            (cause_share(&runs[r], &keys[i]), Some(n))
        },
    ));
    charts
}

/// What the model wrote for a sample, from the run's output files (each
/// read once; nothing where a file is missing or unreadable).
fn written(run: &LevelRun) -> impl FnMut(&SampleRecord) -> Option<String> {
    let dir = run.output_dir().join(crate::suite::levels::SAMPLES_DIR);
    let mut files: HashMap<String, Option<Value>> = HashMap::new();
    move |s| {
        let document = files.entry(s.file.clone()).or_insert_with(|| {
            let text = std::fs::read_to_string(dir.join(format!("{}.json", s.file))).ok()?;
            serde_json::from_str(&text).ok()
        });
        let samples = document.as_ref()?.get("samples")?.as_array()?;
        let sample = samples
            .iter()
            .find(|d| d["turn"] == s.turn && d["occurrence"] == s.occurrence)?;
        sample.get("output")?.as_str().map(str::to_string)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::runs::report;
    use crate::report::Report;

    fn sample(file: &str, turn: usize, api: &str, cause: Option<&str>) -> Value {
        serde_json::json!({"file": file, "turn": turn, "occurrence": 0, "api_name": api,
            "correct": cause.is_none(), "reason": cause.map(|c| format!("because {c}")),
            "correct_reference": cause.is_none(), "correct_lenient": cause.is_none(),
        "rouge_l": null, "cause": cause})
    }

    /// A level-1 summary as evaluate writes it (the keys report reads).
    pub(crate) fn run(dir: &str, predictor: &str, wrong: bool) -> LevelRun {
        let causes = if wrong {
            serde_json::json!({"no_api_call": 0, "unknown_api": 0, "wrong_api": 1, "wrong_arguments": 0, "exception": 1, "parse_failure": 0})
        } else {
            serde_json::json!({"no_api_call": 0, "unknown_api": 0, "wrong_api": 0, "wrong_arguments": 0, "exception": 1, "parse_failure": 0})
        };
        let second = if wrong { Some("wrong_api") } else { None };
        let text = serde_json::json!({
            "suite": "apibank", "level": 1, "samples": 3, "correct": if wrong {1} else {2},
            "accuracy": if wrong {1.0/3.0} else {2.0/3.0}, "rouge_l": 0.5, "replies": 2,
            "scoring": "reference", "correct_reference": if wrong {1} else {2},
            "accuracy_reference": if wrong {1.0/3.0} else {2.0/3.0},
            "correct_lenient": if wrong {1} else {2}, "accuracy_lenient": if wrong {1.0/3.0} else {2.0/3.0},
            "predictor": predictor, "resumed": 0, "dialogue_hashes": [],
            "settings": {"level": 1, "state": "fresh", "retriever": "lexical", "settings": {}},
            "dialogues": 2,
            "by_api": {"AddAlarm": {"samples": 2, "correct": if wrong {1} else {2}, "error_rate": 0.0},
                       "Translate": {"samples": 1, "correct": 0, "error_rate": 1.0}},
            "causes": causes,
            "per_sample": [sample("a.jsonl", 1, "AddAlarm", None), sample("a.jsonl", 3, "AddAlarm", second),
                           sample("t.jsonl", 2, "Translate", Some("exception"))],
        })
        .to_string();
        LevelRun::parse(Path::new(dir), &text).unwrap()
    }

    #[test]
    fn two_level_runs_compare_with_shares_and_differing_samples() {
        let runs = [
            run("runs/oracle", "oracle", false),
            run("runs/replay", "replay", true),
        ];
        assert_eq!(verdict(&runs[1].summary.per_sample[1]), "wrong (wrong API)");
        assert_eq!(cause_share(&runs[1], "wrong_api"), Some(0.5));
        assert_eq!(cause_label("no_api_call"), "no API call");
        let doc = report(&runs).document;
        assert_eq!(doc["kind"], "levels");
        assert_eq!(doc["runs"][1]["cause_shares"]["exception"], 0.5);
        assert_eq!(
            doc["verdict_differs"],
            serde_json::json!([{"file": "a.jsonl", "turn": 3, "occurrence": 0,
                "api_name": "AddAlarm", "correct": [true, false]}])
        );
        assert_eq!(doc["runs"][1]["wrong"].as_array().unwrap().len(), 2);
        insta::assert_snapshot!(report(&runs).markdown().unwrap());
    }

    /// A model's level-1 and level-2 runs share a page as the paper's
    /// Table 3 row; levels each keep their own dataset check.
    #[test]
    fn runs_at_levels_1_and_2_make_table_3() {
        let mut level2 = run("runs/l2", "oracle", false);
        level2.summary.level = 2;
        level2.summary.accuracy = Some(0.25);
        let runs = [run("runs/l1", "oracle", false), level2];
        let report = report(&runs);
        assert_eq!(report.title, "Runs at level 1 and 2 compared");
        let table3 = report.sections.iter().find(|s| s.id == "table-3").unwrap();
        let text = report.markdown().unwrap();
        assert!(
            text.contains("| oracle | 66.7 | 25.0 | 0.5000 | 0.5000 |"),
            "{text}"
        );
        assert_eq!(table3.blocks.len(), 2);
        let one_level = report_of_one_level();
        assert!(one_level.sections.iter().all(|s| s.id != "table-3"));
    }

    /// A run scored leniently says so in its label; the reference scoring
    /// (the default) goes unsaid.
    #[test]
    fn the_scoring_tells_runs_apart() {
        let mut lenient = run("runs/l", "oracle", false);
        lenient.summary.settings["scoring"] = serde_json::json!("lenient");
        assert_eq!(
            LevelFigures::label(&lenient.summary),
            ["oracle", "lenient scoring"]
        );
        let mut reference = run("runs/r", "oracle", false);
        reference.summary.settings["scoring"] = serde_json::json!("reference");
        assert_eq!(LevelFigures::label(&reference.summary), ["oracle"]);
    }

    fn report_of_one_level() -> Report {
        report(&[run("runs/a", "oracle", false)])
    }
}
