//! Map a stream of records on every core and take the results back in input order: a reader
//! thread cuts the records into chunks, workers (each with its own state) map them, and the
//! caller's thread receives the results in order. Channels are bounded, so memory holds a few
//! chunks per worker whatever the input size.

use std::collections::BTreeMap;

use anyhow::Result;
use crossbeam_channel::bounded;

/// Records per chunk handed to a worker.
pub const CHUNK: usize = 512;

/// A chunk of records and the 0-based index of its first.
pub struct Chunk<T> {
    pub first: u64,
    pub records: Vec<T>,
}

/// Run `map` over `records` on `threads` workers (each with `state()`), and `sink` on the
/// results in input order, on the calling thread. The first error (of the records, `map` or
/// `sink`) stops everything and is returned, after `sink` got every chunk before it.
pub fn map_ordered<T, E, S, R>(
    records: impl Iterator<Item = Result<T, E>> + Send,
    threads: usize,
    state: impl Fn() -> S + Sync,
    map: impl Fn(&mut S, Chunk<T>) -> Result<R> + Sync,
    sink: impl FnMut(R) -> Result<()>,
) -> Result<()>
where
    T: Send,
    E: Into<anyhow::Error>,
    R: Send,
{
    map_ordered_in_chunks(CHUNK, records, threads, state, map, sink)
}

/// [`map_ordered`] with `chunk` records per chunk: fewer when each record is costly, so every
/// worker has some.
pub fn map_ordered_in_chunks<T, E, S, R>(
    chunk: usize,
    records: impl Iterator<Item = Result<T, E>> + Send,
    threads: usize,
    state: impl Fn() -> S + Sync,
    map: impl Fn(&mut S, Chunk<T>) -> Result<R> + Sync,
    mut sink: impl FnMut(R) -> Result<()>,
) -> Result<()>
where
    T: Send,
    E: Into<anyhow::Error>,
    R: Send,
{
    let chunk_size = chunk.max(1);
    let threads = threads.max(1);
    let (chunk_tx, chunk_rx) = bounded::<(u64, Chunk<T>)>(threads * 2);
    let (result_tx, result_rx) = bounded::<(u64, Result<R>)>(threads * 2);
    std::thread::scope(|scope| {
        let reader_results = result_tx.clone();
        scope.spawn(move || {
            let mut records = records;
            let (mut sequence, mut first) = (0u64, 0u64);
            loop {
                let mut chunk = Vec::with_capacity(chunk_size);
                let mut failed = None;
                for record in records.by_ref().take(chunk_size) {
                    match record {
                        Ok(record) => chunk.push(record),
                        Err(e) => {
                            failed = Some(e.into());
                            break;
                        }
                    }
                }
                let n = chunk.len() as u64;
                if n > 0
                    && chunk_tx
                        .send((
                            sequence,
                            Chunk {
                                first,
                                records: chunk,
                            },
                        ))
                        .is_err()
                {
                    return;
                }
                sequence += u64::from(n > 0);
                first += n;
                if let Some(e) = failed {
                    let _ = reader_results.send((sequence, Err(e)));
                    return;
                }
                if n < chunk_size as u64 {
                    return;
                }
            }
        });
        for _ in 0..threads {
            let (chunk_rx, result_tx) = (chunk_rx.clone(), result_tx.clone());
            let (state, map) = (&state, &map);
            scope.spawn(move || {
                let mut state = state();
                for (sequence, chunk) in chunk_rx {
                    if result_tx.send((sequence, map(&mut state, chunk))).is_err() {
                        return;
                    }
                }
            });
        }
        drop((chunk_rx, result_tx));
        // Owned here, so that returning early drops it: the workers' sends then fail, they
        // stop, and so does the reader. (Borrowed, it would outlive the scope, which waits
        // for threads blocked on a full channel: a closed pipe hung `align | head -1`.)
        let result_rx = result_rx;
        // Results arrive in any order; hand them on in sequence.
        let mut waiting = BTreeMap::new();
        let mut next = 0u64;
        for (sequence, result) in result_rx.iter() {
            waiting.insert(sequence, result);
            while let Some(result) = waiting.remove(&next) {
                next += 1;
                // Returning drops the receiver: the other threads stop at their next send.
                sink(result?)?;
            }
        }
        Ok(())
    })
}

/// `f` of each item of a slice, on up to `threads` threads, in order: [`map_ordered_in_chunks`]
/// for work that cannot fail, an item per chunk (each is costly).
pub fn map_each<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let mut results = Vec::with_capacity(items.len());
    map_ordered_in_chunks(
        1,
        items.iter().map(Ok::<_, anyhow::Error>),
        threads,
        || (),
        |(), chunk| Ok(chunk.records.into_iter().map(&f).collect::<Vec<R>>()),
        |done| {
            results.extend(done);
            Ok(())
        },
    )
    .expect("nothing fails");
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order_and_errors_after_what_precedes_them() {
        let records = (0..5000u64).map(Ok::<_, anyhow::Error>);
        let mut seen = Vec::new();
        map_ordered(
            records,
            3,
            || (),
            |_, c| Ok(c.records.iter().sum::<u64>()),
            |r| {
                seen.push(r);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen.len(), 5000usize.div_ceil(CHUNK));
        assert_eq!(seen.iter().sum::<u64>(), (0..5000u64).sum::<u64>());

        let failing = (0..2000u64).map(|i| {
            if i == 1500 {
                Err(anyhow::anyhow!("bad record"))
            } else {
                Ok(i)
            }
        });
        let mut firsts = Vec::new();
        let err = map_ordered(
            failing,
            2,
            || (),
            |_, c| Ok(c.first),
            |first| {
                firsts.push(first);
                Ok(())
            },
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "bad record");
        assert_eq!(
            firsts,
            [0, 512, 1024],
            "every record before the error, those of its own chunk too"
        );
    }

    /// A sink that fails early (a closed pipe) ends the run while the reader and the workers
    /// still have records: nobody waits on a full channel.
    #[test]
    fn a_failing_sink_stops_every_thread() {
        for threads in [1, 2, 4] {
            let records = (0..1_000_000u64).map(Ok::<_, anyhow::Error>);
            let err = map_ordered(
                records,
                threads,
                || (),
                |_, c| Ok(c.first),
                |_| Err(anyhow::anyhow!("reader gone")),
            )
            .unwrap_err();
            assert_eq!(err.to_string(), "reader gone");
        }
    }
}
