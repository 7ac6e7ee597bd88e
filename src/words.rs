//! Counted nouns in human output: "1 file", "2 files", "1 gold call".

/// `n` and the noun, plural unless `n` is one. Nouns here form their
/// plural with `s`, except those ending in a consonant and `y`, and
/// those ending in `s`, `x`, `ch` or `sh` (`es`).
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {}", noun_for(n, noun))
}

/// The noun alone, as [`count`] would write it after `n`.
pub fn noun_for(n: usize, noun: &str) -> String {
    if n == 1 {
        return noun.to_string();
    }
    if let Some(stem) = noun.strip_suffix("erratum") {
        return format!("{stem}errata");
    }
    match noun.strip_suffix('y') {
        Some(stem) if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) => format!("{stem}ies"),
        _ if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) => format!("{noun}es"),
        _ => format!("{noun}s"),
    }
}

/// A verb after a counted subject: `singular` for one, `plural` otherwise
/// ("1 call differs", "2 calls differ").
pub fn verb<'a>(n: usize, singular: &'a str, plural: &'a str) -> &'a str {
    if n == 1 {
        singular
    } else {
        plural
    }
}

/// Do two names differ by little (a typo)? For "did you mean" hints. A
/// candidate whose length alone puts it too far is not compared, so a
/// huge name costs one pass over it, not an edit distance per candidate.
pub fn closest_name<'n>(name: &str, candidates: &[&'n str]) -> Option<&'n str> {
    const CLOSE: f64 = 0.7;
    let longest = candidates.iter().map(|c| c.chars().count()).max()?;
    // The distance is at least the difference in length.
    let length = name.chars().take(longest * 2 + 1).count();
    if length > longest * 2 {
        return None;
    }
    let name = name.to_lowercase();
    candidates
        .iter()
        .filter(|c| {
            let other = c.chars().count();
            let most = length.max(other).max(1) as f64;
            1.0 - length.abs_diff(other) as f64 / most >= CLOSE
        })
        .map(|c| {
            (
                strsim::normalized_damerau_levenshtein(&name, &c.to_lowercase()),
                *c,
            )
        })
        .filter(|(score, _)| *score >= CLOSE)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1, "file"), "1 file");
        assert_eq!(count(0, "file"), "0 files");
        assert_eq!(count(2, "tool search"), "2 tool searches");
        assert_eq!(count(2, "gold call"), "2 gold calls");
        assert_eq!(count(3, "summary"), "3 summaries");
        assert_eq!(count(3, "day"), "3 days");
        assert_eq!(count(2, "erratum"), "2 errata");
        assert_eq!(verb(1, "differs", "differ"), "differs");
        assert_eq!(verb(7, "differs", "differ"), "differ");
    }
}
