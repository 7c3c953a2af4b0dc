//! Work on a stream of items shared by the calling thread and one helper thread, results taken
//! in the items' order: what lets `dump` and `check` use both cores on one segment.
//!
//! There is no barrier between groups of items: up to [`SLOTS`] items are in flight, the helper
//! takes the oldest one nobody has taken, and the calling thread consumes the oldest item as soon
//! as it is done, or else takes an item itself. So on a loaded machine, where the helper may not
//! get a core for a while, the calling thread does the work alone instead of waiting for it, and
//! each item's output buffer (a slot) is reused from item to item.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

/// Items in flight at once (and output slots kept).
pub const SLOTS: usize = 3;

enum Status<E> {
    Waiting,
    Taken,
    Done(Result<(), E>),
}

struct State<T, E> {
    /// The items in flight, oldest first; the front one has sequence number `front`.
    queue: VecDeque<(T, Status<E>)>,
    front: usize,
    closed: bool,
    /// A panic on the helper thread, handed to the calling thread.
    panic: Option<Box<dyn std::any::Any + Send>>,
}

struct Shared<T, R, E> {
    state: Mutex<State<T, E>>,
    changed: Condvar,
    slots: Vec<Mutex<R>>,
}

fn lock<X>(m: &Mutex<X>) -> MutexGuard<'_, X> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<T, R: Default, E> Shared<T, R, E> {
    fn new() -> Self {
        Shared {
            state: Mutex::new(State { queue: VecDeque::new(), front: 0, closed: false, panic: None }),
            changed: Condvar::new(),
            slots: (0..SLOTS).map(|_| Mutex::new(R::default())).collect(),
        }
    }
}

impl<T: Clone, R, E> Shared<T, R, E> {
    /// Take the oldest waiting item: its sequence number and a copy of it.
    fn take(state: &mut State<T, E>) -> Option<(usize, T)> {
        let i = state.queue.iter().position(|(_, s)| matches!(s, Status::Waiting))?;
        state.queue[i].1 = Status::Taken;
        Some((state.front + i, state.queue[i].0.clone()))
    }

    /// The helper thread's loop: take the oldest waiting item and work on it, until the share
    /// is closed.
    fn help(&self, work: &(dyn Fn(&T, &mut R) -> Result<(), E> + Sync)) {
        loop {
            let (seq, item) = {
                let mut state = lock(&self.state);
                loop {
                    if state.closed {
                        return;
                    }
                    if let Some(taken) = Self::take(&mut state) {
                        break taken;
                    }
                    state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
                }
            };
            self.work(seq, &item, work);
        }
    }

    /// Keep SLOTS items in flight: queue the next items of `items` while there is room.
    fn fill(&self, items: &mut impl Iterator<Item = T>) {
        while lock(&self.state).queue.len() < SLOTS {
            let Some(item) = items.next() else { break };
            lock(&self.state).queue.push_back((item, Status::Waiting));
            self.changed.notify_all();
        }
    }

    fn work(&self, seq: usize, item: &T, work: &(dyn Fn(&T, &mut R) -> Result<(), E> + Sync)) {
        let result = {
            let mut slot = lock(&self.slots[seq % SLOTS]);
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(item, &mut slot)))
        };
        let mut state = lock(&self.state);
        let i = seq - state.front;
        state.queue[i].1 = match result {
            Ok(r) => Status::Done(r),
            Err(p) => {
                state.panic = Some(p);
                Status::Done(Ok(()))
            }
        };
        self.changed.notify_all();
    }
}

/// Closes the share when the calling thread leaves, however it leaves, so the helper ends.
struct Close<'s, T, R, E>(&'s Shared<T, R, E>);

impl<T, R, E> Drop for Close<'_, T, R, E> {
    fn drop(&mut self) {
        lock(&self.0.state).closed = true;
        self.0.changed.notify_all();
    }
}

/// Run `work` on every item of `items` (each into its slot, a reused `R`), on this thread and
/// one helper, and `consume` each item's slot on this thread in the items' order. Stops at the
/// first error, from `work` (when its item's turn comes) or from `consume`.
pub fn in_order<T, R, E>(
    items: impl Iterator<Item = T>,
    work: &(dyn Fn(&T, &mut R) -> Result<(), E> + Sync),
    mut consume: impl FnMut(&T, &mut R) -> Result<(), E>,
) -> Result<(), E>
where
    T: Clone + Send,
    R: Default + Send,
    E: Send,
{
    let shared = Shared::new();
    let mut items = items.peekable();
    let Some(first) = items.next() else { return Ok(()) };
    if items.peek().is_none() {
        // One item (a small segment): nothing to share, so no helper thread to start.
        let mut slot = R::default();
        work(&first, &mut slot)?;
        return consume(&first, &mut slot);
    }
    let mut items = std::iter::once(first).chain(items);
    // The helper's maps are the command's: a file cut under one is the command's error.
    let watch = crate::map_guard::current();
    std::thread::scope(|scope| {
        scope.spawn(|| crate::map_guard::within(watch, || shared.help(work)));
        let _close = Close(&shared);
        loop {
            shared.fill(&mut items);
            let mut state = lock(&shared.state);
            if let Some(p) = state.panic.take() {
                std::panic::resume_unwind(p);
            }
            match state.queue.front() {
                None => return Ok(()),
                Some((_, Status::Done(_))) => {
                    let (item, status) = state.queue.pop_front().expect("a front item");
                    let seq = state.front;
                    state.front += 1;
                    drop(state);
                    if let Status::Done(result) = status {
                        result?;
                    }
                    consume(&item, &mut lock(&shared.slots[seq % SLOTS]))?;
                }
                Some(_) => match Shared::<T, R, E>::take(&mut state) {
                    Some((seq, item)) => {
                        drop(state);
                        shared.work(seq, &item, work);
                    }
                    // The helper has the oldest item: wait for it.
                    None => drop(shared.changed.wait(state).unwrap_or_else(|e| e.into_inner())),
                },
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_consumed_once_in_order_with_its_own_result() {
        let work = |n: &u64, out: &mut Vec<u64>| -> Result<(), String> {
            out.clear();
            out.extend((0..*n % 7).map(|k| n * 10 + k));
            Ok(())
        };
        let mut seen = Vec::new();
        in_order(0..1000u64, &work, |n, out: &mut Vec<u64>| {
            assert_eq!(*out, (0..*n % 7).map(|k| n * 10 + k).collect::<Vec<_>>());
            seen.push(*n);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, (0..1000).collect::<Vec<_>>());
        in_order(std::iter::empty::<u64>(), &work, |_, _| panic!("no item")).unwrap();
    }

    #[test]
    fn the_first_error_in_order_stops_it() {
        let work = |n: &u32, _: &mut ()| if *n == 50 || *n == 70 { Err(*n) } else { Ok(()) };
        let mut consumed = 0;
        let r = in_order(0..100u32, &work, |_, _| {
            consumed += 1;
            Ok(())
        });
        assert_eq!((r, consumed), (Err(50), 50));
        let r = in_order(0..100u32, &|_: &u32, _: &mut ()| Ok(()), |n, _| if *n == 3 { Err(*n) } else { Ok(()) });
        assert_eq!(r, Err(3));
    }

    #[test]
    fn a_panic_in_work_reaches_the_caller() {
        let work = |n: &u32, _: &mut ()| -> Result<(), ()> {
            assert!(*n != 9, "item 9");
            Ok(())
        };
        let r = std::panic::catch_unwind(|| in_order(0..20u32, &work, |_, _| Ok(())));
        assert!(r.is_err());
    }
}
