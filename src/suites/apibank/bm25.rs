//! Okapi BM25 ranking as the reference's SearchEngine gets it from the
//! `rank_bm25` package (`BM25Okapi` with its defaults: k1 = 1.5,
//! b = 0.75, epsilon = 0.25), and numpy's `argsort` to order the scores.
//! ToolSearcher's lexical retriever uses the same ranking.
//!
//! Both are written to give the same floats and the same order as the
//! Python code, ties included:
//! - a term's idf is `ln(N - n + 0.5) - ln(n + 0.5)` for a term in `n` of
//!   `N` documents; a negative idf (a term in more than half of them) is
//!   replaced by `epsilon` times the mean idf over all terms, summed in the
//!   order terms first appear in the corpus;
//! - a document's score adds, for each query term in order (a repeated
//!   term counts again), `idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b *
//!   len / avgdl))`, with the operations in numpy's order; a term unknown
//!   to the corpus adds nothing;
//! - [`argsort`] is numpy's default sort (an introsort that is not
//!   stable), so equal scores come out in numpy's order, not index order.

use indexmap::IndexMap;
use rustc_hash::FxHashMap;

const K1: f64 = 1.5;
const B: f64 = 0.75;
const EPSILON: f64 = 0.25;

/// A BM25 index over a tokenised corpus.
#[derive(Debug, Clone)]
pub struct Bm25 {
    /// Each document's term frequencies.
    frequencies: Vec<FxHashMap<String, u32>>,
    lengths: Vec<usize>,
    average_length: f64,
    idf: FxHashMap<String, f64>,
}

impl Bm25 {
    /// `BM25Okapi(corpus)`. An empty corpus fails as the Python code does
    /// (`ZeroDivisionError: division by zero`).
    pub fn okapi<D, T>(corpus: &[D]) -> Result<Bm25, String>
    where
        D: AsRef<[T]>,
        T: AsRef<str>,
    {
        if corpus.is_empty() {
            return Err("division by zero".into());
        }
        let mut frequencies = Vec::with_capacity(corpus.len());
        let mut lengths = Vec::with_capacity(corpus.len());
        // Documents per term, in the order terms are first seen.
        let mut documents: IndexMap<String, u32> = IndexMap::new();
        let mut total = 0usize;
        for document in corpus {
            let document = document.as_ref();
            lengths.push(document.len());
            total += document.len();
            let mut counts: IndexMap<&str, u32> = IndexMap::new();
            for term in document {
                *counts.entry(term.as_ref()).or_insert(0) += 1;
            }
            for term in counts.keys() {
                *documents.entry((*term).to_string()).or_insert(0) += 1;
            }
            frequencies.push(
                counts
                    .into_iter()
                    .map(|(term, count)| (term.to_string(), count))
                    .collect(),
            );
        }
        let n = corpus.len() as f64;
        let mut idf = FxHashMap::default();
        let mut sum = 0.0;
        let mut negative = Vec::new();
        for (term, &count) in &documents {
            let count = f64::from(count);
            let value = (n - count + 0.5).ln() - (count + 0.5).ln();
            sum += value;
            if value < 0.0 {
                negative.push(term.clone());
            }
            idf.insert(term.clone(), value);
        }
        if !documents.is_empty() {
            let floor = EPSILON * (sum / documents.len() as f64);
            for term in negative {
                idf.insert(term, floor);
            }
        } else {
            return Err("division by zero".into());
        }
        Ok(Bm25 {
            frequencies,
            lengths,
            average_length: total as f64 / n,
            idf,
        })
    }

    /// `get_scores(query)`: one score per document, in corpus order.
    pub fn scores<T: AsRef<str>>(&self, query: &[T]) -> Vec<f64> {
        let mut scores = vec![0.0; self.frequencies.len()];
        for term in query {
            let term = term.as_ref();
            let idf = self.idf.get(term).copied().unwrap_or(0.0);
            for (score, (frequencies, &length)) in scores
                .iter_mut()
                .zip(self.frequencies.iter().zip(&self.lengths))
            {
                let tf = f64::from(frequencies.get(term).copied().unwrap_or(0));
                let norm = K1 * ((1.0 - B) + B * length as f64 / self.average_length);
                *score += idf * (tf * (K1 + 1.0) / (tf + norm));
            }
        }
        scores
    }
}

/// numpy's `less` for floats: NaN sorts last.
fn less(a: f64, b: f64) -> bool {
    a < b || (b.is_nan() && !a.is_nan())
}

/// `np.argsort(values)` with numpy's default kind (`quicksort`: numpy's
/// introsort for an index array, as numpy 1.x runs it without SIMD).
pub fn argsort(values: &[f64]) -> Vec<usize> {
    const SMALL: usize = 15;
    let mut order: Vec<usize> = (0..values.len()).collect();
    if values.len() < 2 {
        return order;
    }
    let v = |i: usize| values[i];
    // (low, high, depth) ranges left to sort, inclusive.
    let mut stack: Vec<(usize, usize, i32)> = Vec::new();
    let (mut pl, mut pr) = (0usize, values.len() - 1);
    let mut depth = 2 * (usize::BITS - 1 - values.len().leading_zeros()) as i32;
    loop {
        let mut heap = false;
        if depth < 0 {
            heapsort(values, &mut order[pl..=pr]);
            heap = true;
        } else {
            while pr - pl > SMALL {
                let pm = pl + ((pr - pl) >> 1);
                if less(v(order[pm]), v(order[pl])) {
                    order.swap(pm, pl);
                }
                if less(v(order[pr]), v(order[pm])) {
                    order.swap(pr, pm);
                }
                if less(v(order[pm]), v(order[pl])) {
                    order.swap(pm, pl);
                }
                let pivot = v(order[pm]);
                let (mut pi, mut pj) = (pl, pr - 1);
                order.swap(pm, pj);
                loop {
                    pi += 1;
                    while less(v(order[pi]), pivot) {
                        pi += 1;
                    }
                    pj -= 1;
                    while less(pivot, v(order[pj])) {
                        pj -= 1;
                    }
                    if pi >= pj {
                        break;
                    }
                    order.swap(pi, pj);
                }
                order.swap(pi, pr - 1);
                depth -= 1;
                // The larger side waits on the stack.
                if pi - pl < pr - pi {
                    stack.push((pi + 1, pr, depth));
                    pr = pi - 1;
                } else {
                    stack.push((pl, pi - 1, depth));
                    pl = pi + 1;
                }
            }
        }
        if !heap {
            // Insertion sort of what is left.
            for i in pl + 1..=pr {
                let item = order[i];
                let value = v(item);
                let mut j = i;
                while j > pl && less(value, v(order[j - 1])) {
                    order[j] = order[j - 1];
                    j -= 1;
                }
                order[j] = item;
            }
        }
        match stack.pop() {
            Some((low, high, d)) => {
                pl = low;
                pr = high;
                depth = d;
            }
            None => break,
        }
    }
    order
}

/// numpy's `aheapsort` over a slice of indices.
fn heapsort(values: &[f64], order: &mut [usize]) {
    let n = order.len();
    // One-based positions, as numpy writes it.
    let get = |order: &[usize], i: usize| order[i - 1];
    let sift = |order: &mut [usize], mut i: usize, n: usize, item: usize| {
        let mut j = i * 2;
        while j <= n {
            if j < n && less(values[get(order, j)], values[get(order, j + 1)]) {
                j += 1;
            }
            if less(values[item], values[get(order, j)]) {
                order[i - 1] = get(order, j);
                i = j;
                j += j;
            } else {
                break;
            }
        }
        order[i - 1] = item;
    };
    for l in (1..=n / 2).rev() {
        let item = get(order, l);
        sift(order, l, n, item);
    }
    let mut n = n;
    while n > 1 {
        let item = get(order, n);
        order[n - 1] = get(order, 1);
        n -= 1;
        sift(order, 1, n, item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> Vec<Vec<&'static str>> {
        vec![
            vec!["the", "cat", "sat"],
            vec!["the", "dog", "sat", "down"],
            vec!["a", "cat", "and", "a", "dog"],
        ]
    }

    #[test]
    fn scores_follow_okapi_with_the_epsilon_floor() {
        let bm25 = Bm25::okapi(&corpus()).unwrap();
        // "cat": in 2 of 3 documents, idf ln(1.5) - ln(2.5) < 0, floored
        // to 0.25 * the mean idf.
        let idf = |n: f64| (3.0 - n + 0.5f64).ln() - (n + 0.5f64).ln();
        let terms = [
            ("the", 2.0),
            ("cat", 2.0),
            ("sat", 2.0),
            ("dog", 2.0),
            ("down", 1.0),
            ("a", 1.0),
            ("and", 1.0),
        ];
        let mean = terms.iter().map(|(_, n)| idf(*n)).sum::<f64>() / 7.0;
        let avgdl = 12.0 / 3.0;
        let expected = |tf: f64, len: f64, idf: f64| {
            idf * (tf * 2.5 / (tf + 1.5 * (0.25 + 0.75 * len / avgdl)))
        };
        let scores = bm25.scores(&["cat", "down", "unknown"]);
        assert_eq!(scores[0], expected(1.0, 3.0, 0.25 * mean) + 0.0);
        assert_eq!(
            scores[1],
            expected(0.0, 4.0, 0.25 * mean) + expected(1.0, 4.0, idf(1.0))
        );
        assert_eq!(
            scores[2],
            expected(1.0, 5.0, 0.25 * mean) + expected(0.0, 5.0, idf(1.0))
        );
        assert!(Bm25::okapi::<Vec<&str>, &str>(&[]).is_err());
    }

    #[test]
    fn argsort_sorts_and_orders_ties_as_numpy_does() {
        let values = [3.0, 1.0, 2.0, 1.0];
        assert_eq!(argsort(&values), [1, 3, 2, 0]);
        // Small arrays are insertion-sorted, so ties keep index order.
        assert_eq!(argsort(&[0.0; 10]), (0..10).collect::<Vec<_>>());
        // numpy 1.24: np.argsort(np.zeros(20)) (the quicksort partition
        // moves equal items).
        assert_eq!(
            argsort(&[0.0; 20]),
            [0, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 18, 19]
        );
        // numpy 1.24: np.argsort(-np.zeros(73)), SearchEngine's order when
        // no document matches.
        assert_eq!(
            argsort(&[-0.0; 73]),
            [
                0, 51, 50, 49, 48, 47, 46, 52, 45, 43, 42, 41, 40, 39, 38, 44, 53, 54, 55, 70, 69,
                68, 67, 66, 65, 64, 63, 62, 61, 60, 59, 58, 57, 56, 37, 71, 36, 34, 14, 13, 12, 11,
                10, 9, 15, 8, 6, 5, 4, 3, 2, 1, 7, 16, 17, 18, 33, 32, 31, 30, 29, 28, 27, 26, 25,
                24, 23, 22, 21, 20, 19, 35, 72
            ]
        );
        let many: Vec<f64> = (0..200).map(|i| ((i * 37) % 101) as f64).collect();
        let order = argsort(&many);
        assert!(order.windows(2).all(|w| many[w[0]] <= many[w[1]]));
        let mut heap: Vec<usize> = (0..many.len()).collect();
        heapsort(&many, &mut heap);
        assert!(heap.windows(2).all(|w| many[w[0]] <= many[w[1]]));
    }
}
