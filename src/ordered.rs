//! Working on many items in parallel while handing the results on in item
//! order, with a bounded number held at a time, so that what a command
//! holds does not grow with the dataset.
//!
//! Each worker takes the next item, maps it, and files the result by its
//! position; whoever files the result the sink is waiting for hands on
//! every result that is then ready, in order. A worker does not start an
//! item more than a window's length ahead of the sink. No worker waits for
//! the others at fixed points (an earlier version mapped batches with a
//! join between them, and each join left a core idle while the last items
//! of a batch finished).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Items mapped ahead of the sink, at most: enough to keep every core busy
/// while one result is slow, few enough that the results held (a few
/// hundred conversations' worth) are a few hundred kilobytes.
pub const WINDOW: usize = 256;

/// How many files a worker takes at a time when it works through a group
/// phase by phase (see `eval::run` and `lint::engine`): `most`, or fewer
/// when there are too few files to give each of `workers` eight groups.
pub fn group_len(files: usize, workers: usize, most: usize) -> usize {
    (files / (workers.max(1) * 8)).clamp(1, most.max(1))
}

/// The window, counted in groups of `group` items, for
/// [`for_each_in_order_within`]: about [`WINDOW`] items, and at least two
/// groups per worker.
pub fn group_window(group: usize, workers: usize) -> usize {
    (WINDOW / group.max(1)).max(2 * workers.max(1))
}

/// Map every item on the rayon pool and hand each result to `sink`, in the
/// order of `items`, holding at most [`WINDOW`] results.
pub fn for_each_in_order<T, R, M, S>(items: &[T], map: M, sink: S)
where
    T: Sync,
    R: Send,
    M: Fn(usize, &T) -> R + Sync,
    S: FnMut(R) + Send,
{
    for_each_in_order_within(items, WINDOW, map, sink)
}

/// [`for_each_in_order`] with a window of `window` items (at least one),
/// for items that each stand for several (groups of files).
pub fn for_each_in_order_within<T, R, M, S>(items: &[T], window: usize, map: M, sink: S)
where
    T: Sync,
    R: Send,
    M: Fn(usize, &T) -> R + Sync,
    S: FnMut(R) + Send,
{
    if items.is_empty() {
        return;
    }
    let shared = Shared {
        next: AtomicUsize::new(0),
        window: window.max(1),
        queue: Mutex::new(Queue {
            ready: VecDeque::new(),
            taken: 0,
            sunk: 0,
            draining: false,
            abandoned: false,
        }),
        room: Condvar::new(),
        sink: Mutex::new(sink),
    };
    let workers = rayon::current_num_threads().clamp(1, items.len());
    rayon::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|_| shared.work(items, &map));
        }
    });
}

struct Shared<R, S> {
    /// The next item to start.
    next: AtomicUsize,
    window: usize,
    queue: Mutex<Queue<R>>,
    /// Signalled when the sink moves on (or a worker gives up).
    room: Condvar,
    /// Only the draining worker takes it, so it is never contended.
    sink: Mutex<S>,
}

struct Queue<R> {
    /// `ready[k]` is the result of item `taken + k`, once mapped.
    ready: VecDeque<Option<R>>,
    /// Items taken out of `ready` for the sink so far.
    taken: usize,
    /// Items the sink has had so far.
    sunk: usize,
    /// A worker is handing results to the sink.
    draining: bool,
    /// A worker panicked: the item it held will never be filed.
    abandoned: bool,
}

impl<R: Send, S: FnMut(R) + Send> Shared<R, S> {
    fn work<T: Sync>(&self, items: &[T], map: &(impl Fn(usize, &T) -> R + Sync)) {
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            if index >= items.len() {
                return;
            }
            {
                let mut queue = self.lock();
                while index >= queue.sunk + self.window && !queue.abandoned {
                    queue = self
                        .room
                        .wait(queue)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                if queue.abandoned {
                    return;
                }
            }
            let guard = Abandon(self);
            let result = map(index, &items[index]);
            std::mem::forget(guard);
            self.file(index, result);
        }
    }

    /// File the result of item `index`; hand on what is then ready unless
    /// another worker is already doing so (it will find this one too).
    fn file(&self, index: usize, result: R) {
        let mut queue = self.lock();
        let slot = index - queue.taken;
        if queue.ready.len() <= slot {
            queue.ready.resize_with(slot + 1, || None);
        }
        queue.ready[slot] = Some(result);
        if queue.draining {
            return;
        }
        queue.draining = true;
        let mut batch = Vec::new();
        loop {
            while let Some(Some(_)) = queue.ready.front() {
                batch.extend(queue.ready.pop_front().flatten());
            }
            if batch.is_empty() {
                queue.draining = false;
                return;
            }
            let handed = batch.len();
            queue.taken += handed;
            // The sink runs without the queue's lock, so that the other
            // workers file their results meanwhile.
            drop(queue);
            let guard = Abandon(self);
            let mut sink = self.sink.lock().unwrap_or_else(PoisonError::into_inner);
            batch.drain(..).for_each(&mut *sink);
            drop(sink);
            std::mem::forget(guard);
            queue = self.lock();
            queue.sunk += handed;
            self.room.notify_all();
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue<R>> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Dropped only when `map` or the sink panics: the sink will never reach
/// the item being mapped (or get past the one it was handed), so the
/// workers waiting for it are let go (the panic then reaches the caller
/// through `rayon::scope`).
struct Abandon<'a, R, S>(&'a Shared<R, S>);

impl<R, S> Drop for Abandon<'_, R, S> {
    fn drop(&mut self) {
        let mut queue = self.0.queue.lock().unwrap_or_else(PoisonError::into_inner);
        queue.abandoned = true;
        self.0.room.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    #[test]
    fn results_arrive_in_input_order_whatever_the_pool_does() {
        let items: Vec<usize> = (0..3 * WINDOW + 17).collect();
        let mut seen = Vec::new();
        pool(4).install(|| {
            for_each_in_order(
                &items,
                |i, &x| {
                    assert_eq!(i, x, "the index is the item's position");
                    // Uneven work, so items finish out of order.
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
    fn no_item_starts_a_window_ahead_of_the_sink() {
        let items: Vec<usize> = (0..500).collect();
        let sunk = AtomicUsize::new(0);
        let mut order = Vec::new();
        pool(4).install(|| {
            for_each_in_order_within(
                &items,
                8,
                |i, _| {
                    let behind = sunk.load(Ordering::SeqCst);
                    assert!(i < behind + 8, "item {i} started with {behind} handed on");
                    // The first item is slow: the others must wait for it.
                    if i == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(20));
                    }
                    i
                },
                |i| {
                    order.push(i);
                    sunk.fetch_add(1, Ordering::SeqCst);
                },
            )
        });
        assert_eq!(order, items);
    }

    #[test]
    fn one_thread_or_a_window_of_one_still_hands_everything_on() {
        let items: Vec<u32> = (0..100).collect();
        for (threads, window) in [(1, WINDOW), (3, 1), (2, 0)] {
            let mut seen = Vec::new();
            pool(threads).install(|| {
                for_each_in_order_within(&items, window, |_, &x| x + 1, |r| seen.push(r))
            });
            assert_eq!(
                seen,
                (1..=100).collect::<Vec<u32>>(),
                "{threads} threads, window {window}"
            );
        }
    }

    #[test]
    fn a_panicking_item_reaches_the_caller_and_leaves_no_worker_waiting() {
        let items: Vec<usize> = (0..200).collect();
        let outcome = std::panic::catch_unwind(|| {
            pool(3).install(|| {
                for_each_in_order_within(
                    &items,
                    4,
                    |i, _| {
                        if i == 1 {
                            std::thread::sleep(std::time::Duration::from_millis(5));
                            panic!("item 1 fails");
                        }
                        i
                    },
                    |_| {},
                )
            })
        });
        assert!(outcome.is_err(), "the panic is passed on");
    }

    #[test]
    fn a_panicking_sink_reaches_the_caller_and_leaves_no_worker_waiting() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let items: Vec<usize> = (0..200).collect();
            let outcome = std::panic::catch_unwind(|| {
                pool(3).install(|| {
                    for_each_in_order_within(
                        &items,
                        4,
                        |i, _| i,
                        |i| {
                            if i == 1 {
                                panic!("the sink fails on item 1");
                            }
                        },
                    )
                })
            });
            let _ = done.send(outcome.is_err());
        });
        let passed_on = finished
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("the run ended instead of leaving workers waiting");
        assert!(passed_on, "the panic is passed on");
    }

    #[test]
    fn groups_shrink_until_every_worker_has_several() {
        assert_eq!(group_len(7800, 2, 16), 16);
        assert_eq!(group_len(78, 2, 16), 4);
        assert_eq!(group_len(8, 2, 16), 1);
        assert_eq!(group_len(0, 2, 16), 1);
        assert_eq!(group_len(7800, 0, 16), 16);
        assert_eq!(group_len(7800, 2, 0), 1);
        assert_eq!(group_window(16, 2), WINDOW / 16);
        assert_eq!(group_window(64, 8), 16);
        assert_eq!(group_window(0, 0), WINDOW);
    }

    #[test]
    fn nothing_in_nothing_out() {
        let mut calls = 0;
        for_each_in_order(&[] as &[u8], |_, _| (), |_| calls += 1);
        assert_eq!(calls, 0);
    }
}
