//! The computer's own threads: a fixed few that think at the lowest CPU priority, so that while
//! every one of them is busy the runtime's threads, which serve the human games, still get the
//! CPU the moment they want it. (On the blocking pool the engine would be scheduled as an equal
//! of the runtime: on a one-core server the load generator saw human turns per second fall to a
//! third while a level-6 search ran.)
//!
//! The pool owns its threads; they end when it is dropped (the queue closes) and their last job
//! is done. Jobs that could run long watch a stop flag of their own.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// One queued piece of work.
type Job = Box<dyn FnOnce() + Send>;

/// A few low-priority threads taking jobs from one queue.
#[derive(Debug)]
pub(super) struct Threads {
    queue: mpsc::Sender<Job>,
}

impl Threads {
    /// Starts `count` threads (at least one), named `merels-engine-N`.
    pub fn start(count: usize) -> Threads {
        let (queue, jobs) = mpsc::channel::<Job>();
        let jobs = Arc::new(Mutex::new(jobs));
        for n in 0..count.max(1) {
            let jobs = Arc::clone(&jobs);
            let started = std::thread::Builder::new()
                .name(format!("merels-engine-{n}"))
                .spawn(move || {
                    lower_priority();
                    loop {
                        // The lock is held only while waiting for the next job, not while it runs.
                        let job = jobs.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        let Ok(job) = job else { return };
                        job();
                    }
                });
            if let Err(e) = started {
                tracing::error!(error = %e, "could not start an engine thread");
            }
        }
        Threads { queue }
    }

    /// Runs `work` on one of the threads; its result arrives on the receiver, which fails if the
    /// work panicked (the thread lives on) or the pool has no thread left.
    pub fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> oneshot::Receiver<T> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            if let Ok(done) = std::panic::catch_unwind(AssertUnwindSafe(work)) {
                let _ = tx.send(done);
            }
        });
        let _ = self.queue.send(job);
        rx
    }
}

/// Runs `work` on a thread of its own at the lowest priority, for work of minutes that should
/// not hold an engine thread (building a solved table).
pub(super) fn run_apart(name: &str, work: impl FnOnce() + Send + 'static) {
    let started = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            lower_priority();
            work();
        });
    if let Err(e) = started {
        tracing::error!(error = %e, "could not start a thread");
    }
}

/// Gives the calling thread the lowest priority (nice 19). On Linux a nice value belongs to one
/// thread, not to the whole process, and lowering it needs no privilege. Elsewhere the thread
/// keeps the process's.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::process::setpriority_process(None, 19) {
        tracing::warn!(error = %e, "the engine thread keeps its priority");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_and_a_panic_costs_only_its_own_answer() {
        let threads = Threads::start(1);
        let panicked = threads.run(|| -> u32 { panic!("a bad job") });
        assert!(panicked.await.is_err());
        let name = threads.run(|| std::thread::current().name().map(String::from));
        assert_eq!(name.await.unwrap().as_deref(), Some("merels-engine-0"));
        #[cfg(target_os = "linux")]
        assert_eq!(
            threads
                .run(|| rustix::process::getpriority_process(None).unwrap())
                .await
                .unwrap(),
            19,
            "engine threads run at the lowest priority"
        );
    }
}
