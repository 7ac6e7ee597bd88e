//! ROUGE-L as the `rouge` Python package (version 1.0.1) computes it,
//! which is what the reference's evaluator scores a reply with
//! (`Rouge().get_scores(hypothesis, reference)[0]["rouge-l"]["f"]`,
//! rounded to four places).
//!
//! How it differs from the ROUGE-L of the ROUGE papers and of
//! `rouge-score`:
//! - no stemming, no lower-casing and no punctuation removal: a token is
//!   whatever lies between single spaces once each sentence's whitespace
//!   runs are collapsed, so `Paris,` and `paris` are different tokens;
//! - sentences are the pieces between full stops (`text.split(".")`,
//!   empty pieces dropped), whatever the full stop stands for (`3.5`
//!   splits too);
//! - it is the summary-level score, and its union of longest common
//!   subsequences is a *set of tokens*: for every reference sentence and
//!   every reply sentence, one longest common subsequence is traced back
//!   (preferring, on ties, to drop a reply token), and the score counts the
//!   distinct tokens of all of them together; recall and precision divide
//!   that count by the number of *distinct* tokens of the reference and of
//!   the reply. A repeated word counts once, and word order matters only
//!   within a sentence;
//! - F is `2PR / (P + R + 1e-8)`, so identical texts score just under 1.
//!
//! Where the package raises (a text with no sentence, such as `"..."`),
//! the score here is 0, as the reference's evaluator scores an empty reply.

use std::collections::HashSet;

use crate::sim::pyargs::py_split;

/// The reply's ROUGE-L F score against the reference text, rounded to four
/// places as the reference's evaluator rounds it.
pub fn rouge_l(reply: &str, reference: &str) -> f64 {
    round4(rouge_l_f(reply, reference))
}

/// The unrounded F score (0 where the package would raise).
pub fn rouge_l_f(reply: &str, reference: &str) -> f64 {
    let hypothesis = sentences(reply);
    let reference = sentences(reference);
    if hypothesis.is_empty() || reference.is_empty() {
        return 0.0;
    }
    let distinct = |sentences: &[String]| -> usize {
        sentences
            .iter()
            .flat_map(|s| s.split(' '))
            .collect::<HashSet<&str>>()
            .len()
    };
    let (m, n) = (distinct(&reference), distinct(&hypothesis));
    let mut union: HashSet<&str> = HashSet::new();
    for r in &reference {
        let r: Vec<&str> = r.split(' ').collect();
        for c in &hypothesis {
            let c: Vec<&str> = c.split(' ').collect();
            union.extend(lcs_tokens(&r, &c));
        }
    }
    let llcs = union.len() as f64;
    let recall = llcs / m as f64;
    let precision = llcs / n as f64;
    2.0 * ((precision * recall) / (precision + recall + 1e-8))
}

/// `[" ".join(s.split()) for s in text.split(".") if len(s) > 0]`: a piece
/// of only whitespace stays, as an empty sentence (one empty token).
fn sentences(text: &str) -> Vec<String> {
    let pieces = text.split('.').filter(|piece| !piece.is_empty());
    pieces.map(|piece| py_split(piece).join(" ")).collect()
}

/// The tokens of one longest common subsequence of `x` (reference) and
/// `y` (reply), traced back as the package traces it: on a tie between
/// dropping a token of `x` and one of `y`, the one of `y` goes.
fn lcs_tokens<'a>(x: &[&'a str], y: &[&'a str]) -> Vec<&'a str> {
    let (n, m) = (x.len(), y.len());
    let width = m + 1;
    let mut table = vec![0usize; (n + 1) * width];
    for i in 1..=n {
        for j in 1..=m {
            table[i * width + j] = if x[i - 1] == y[j - 1] {
                table[(i - 1) * width + j - 1] + 1
            } else {
                table[(i - 1) * width + j].max(table[i * width + j - 1])
            };
        }
    }
    let (mut i, mut j) = (n, m);
    let mut tokens = Vec::new();
    while i > 0 && j > 0 {
        if x[i - 1] == y[j - 1] {
            tokens.push(x[i - 1]);
            i -= 1;
            j -= 1;
        } else if table[(i - 1) * width + j] > table[i * width + j - 1] {
            i -= 1;
        } else {
            j -= 1;
        }
    }
    tokens
}

/// Python's `round(x, 4)`: the nearest four-place decimal to the exact
/// value of `x` (Rust's formatting rounds the exact value, as Python does).
fn round4(x: f64) -> f64 {
    format!("{x:.4}").parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values computed once, outside the repository, with the
    /// `rouge` package itself: `pip install rouge==1.0.1` in a virtual
    /// environment, then for each pair
    /// `Rouge().get_scores(reply, reference)[0]["rouge-l"]["f"]` (the
    /// unrounded F, printed with `repr`).
    const FROM_THE_PACKAGE: &[(&str, &str, f64)] = &[
        (
            "The meeting is set for 3 pm tomorrow.",
            "Your meeting has been scheduled for 3 pm tomorrow.",
            0.5882352891349482,
        ),
        (
            "the cat the cat sat",
            "the cat sat on the mat",
            0.49999999531250006,
        ),
        (
            "Done. Your alarm is set. Anything else?",
            "Your alarm has been set for 6:30 am. Is there anything else?",
            0.4210526269252078,
        ),
        (
            "It costs 3.5 dollars",
            "The price is 3.5 dollars.",
            0.5454545404958678,
        ),
        ("Paris, France", "paris france", 0.0),
        ("a b c d", "d c b a", 0.24999999500000009),
        ("x  y\tz", "x y z", 0.999999995),
        ("Hello world", "Hello world", 0.999999995),
        (". hello", "hello", 0.999999995),
        // The traced-back subsequence decides: "b" is kept from "b a".
        ("b a. a", "a b", 0.999999995),
        ("b a. b", "a b", 0.4999999950000001),
        (
            "the cat. the dog",
            "the cat and the dog",
            0.8571428522448981,
        ),
    ];

    #[test]
    fn scores_as_the_rouge_package_does() {
        for (reply, reference, expected) in FROM_THE_PACKAGE {
            let f = rouge_l_f(reply, reference);
            assert!(
                (f - expected).abs() < 1e-12,
                "{reply:?} against {reference:?}: {f} where the package gives {expected}"
            );
        }
    }

    #[test]
    fn rounds_to_four_places_as_the_evaluator_does() {
        assert_eq!(
            rouge_l(
                "The meeting is set for 3 pm tomorrow.",
                "Your meeting has been scheduled for 3 pm tomorrow."
            ),
            0.5882
        );
        assert_eq!(rouge_l("Hello world", "Hello world"), 1.0);
        assert_eq!(rouge_l("the cat. the dog", "the cat and the dog"), 0.8571);
    }

    #[test]
    fn a_text_without_a_sentence_scores_zero() {
        assert_eq!(rouge_l("", "Hello"), 0.0);
        assert_eq!(rouge_l("...", "Hello"), 0.0);
        assert_eq!(rouge_l("Hello", "."), 0.0);
    }
}
