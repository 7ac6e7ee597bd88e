//! Working on many files in parallel while handing the results on in file
//! order, one bounded batch at a time, so that what a command holds does
//! not grow with the dataset.

use rayon::prelude::*;

/// Items mapped in parallel before their results are handed on. Large
/// enough to keep every core busy, small enough that a batch of results
/// (a few hundred conversations' worth) is a few hundred kilobytes.
pub const BATCH: usize = 256;

/// Map every item on the rayon pool and hand each result to `sink`, in the
/// order of `items`. While one batch is mapped, the previous batch's
/// results are handed on, so the (serial) sink costs no worker time.
pub fn for_each_in_order<T, R, M, S>(items: &[T], map: M, mut sink: S)
where
    T: Sync,
    R: Send,
    M: Fn(usize, &T) -> R + Sync,
    S: FnMut(R) + Send,
{
    // The loop runs on a worker, so each batch's fork and join stay
    // inside the pool instead of waking it from outside every time.
    rayon::scope(|_| {
        let mut ready: Vec<R> = Vec::new();
        for (b, batch) in items.chunks(BATCH).enumerate() {
            let first = b * BATCH;
            let (next, ()) = rayon::join(
                || {
                    batch
                        .par_iter()
                        .enumerate()
                        .map(|(i, item)| map(first + i, item))
                        .collect::<Vec<R>>()
                },
                || ready.drain(..).for_each(&mut sink),
            );
            ready = next;
        }
        ready.into_iter().for_each(sink);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_arrive_in_input_order_whatever_the_pool_does() {
        let items: Vec<usize> = (0..3 * BATCH + 17).collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let mut seen = Vec::new();
        pool.install(|| {
            for_each_in_order(
                &items,
                |i, &x| {
                    assert_eq!(i, x, "the index is the item's position");
                    // Uneven work, so batches finish out of order inside.
                    if x % 7 == 0 {
                        std::thread::sleep(std::time::Duration::from_micros(50));
                    }
                    x * 2
                },
                |r| seen.push(r),
            )
        });
        let want: Vec<usize> = items.iter().map(|x| x * 2).collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn nothing_in_nothing_out() {
        let mut calls = 0;
        for_each_in_order(&[] as &[u8], |_, _| (), |_| calls += 1);
        assert_eq!(calls, 0);
    }
}
