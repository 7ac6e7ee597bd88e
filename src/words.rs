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
