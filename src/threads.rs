//! Threads at the lowest CPU priority for work that must never take the CPU from the runtime's
//! threads, which serve the games: the computer's searches, analyses and pictures. While every
//! one of them is busy, the runtime still gets the CPU the moment it wants it. (On the blocking
//! pool such work is scheduled as an equal of the runtime: on a one-core server the load
//! generator saw human turns per second fall to a third while a level-6 search ran, and the
//! median latency of a turn rise from 0.75 ms to 9.8 ms while pictures were drawn.)
//!
//! Each kind of work has a pool of its own, so that no turn of the computer ever waits behind an
//! analysis or a picture. A pool owns its threads; they end when it is dropped (the queue
//! closes) and their last job is done. Jobs that could run long watch a stop flag of their own.
//! Work of minutes (building a solved table) runs one piece at a time, on a thread that lives
//! only while there is such work ([`OneAtATime`]).

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// One queued piece of work.
type Job = Box<dyn FnOnce() + Send>;

/// A few low-priority threads taking jobs from one queue.
#[derive(Debug)]
pub struct Threads {
    queue: mpsc::Sender<Job>,
}

impl Threads {
    /// Starts `count` threads (at least one), named `NAME-N`.
    pub fn start(name: &str, count: usize) -> Threads {
        let (queue, jobs) = mpsc::channel::<Job>();
        let jobs = Arc::new(Mutex::new(jobs));
        for n in 0..count.max(1) {
            let jobs = Arc::clone(&jobs);
            let started = std::thread::Builder::new()
                .name(format!("{name}-{n}"))
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
                tracing::error!(error = %e, thread = name, "could not start a thread");
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

/// Work of minutes that should not hold a pool's thread (building a solved table), run one piece
/// at a time in the order asked, on a thread at the lowest priority that lives only while there
/// is such work: however many ask at once, one runs.
#[derive(Debug)]
pub struct OneAtATime {
    name: &'static str,
    line: Arc<Mutex<Line>>,
}

/// The work waiting, and whether a thread is taking it.
#[derive(Default)]
struct Line {
    waiting: VecDeque<Job>,
    running: bool,
}

impl std::fmt::Debug for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Line")
            .field("waiting", &self.waiting.len())
            .field("running", &self.running)
            .finish()
    }
}

impl OneAtATime {
    /// An empty line whose thread is named `name`.
    pub fn new(name: &'static str) -> OneAtATime {
        OneAtATime {
            name,
            line: Arc::default(),
        }
    }

    /// Queues `work` after whatever was queued before; a panic in it costs only itself.
    pub fn push(&self, work: impl FnOnce() + Send + 'static) {
        let mut line = self.line.lock().unwrap_or_else(|e| e.into_inner());
        line.waiting.push_back(Box::new(work));
        if line.running {
            return;
        }
        let shared = Arc::clone(&self.line);
        let started = std::thread::Builder::new()
            .name(self.name.into())
            .spawn(move || {
                lower_priority();
                loop {
                    let job = {
                        let mut line = shared.lock().unwrap_or_else(|e| e.into_inner());
                        let Some(job) = line.waiting.pop_front() else {
                            line.running = false;
                            return;
                        };
                        job
                    };
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
                }
            });
        match started {
            Ok(_) => line.running = true,
            Err(e) => {
                line.waiting.clear();
                tracing::error!(error = %e, "could not start a thread");
            }
        }
    }
}

/// Gives the calling thread the lowest priority (nice 19). On Linux a nice value belongs to one
/// thread, not to the whole process, and lowering it needs no privilege. Elsewhere the thread
/// keeps the process's.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::process::setpriority_process(None, 19) {
        tracing::warn!(error = %e, "a low-priority thread keeps its priority");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_and_a_panic_costs_only_its_own_answer() {
        let threads = Threads::start("merels-engine", 1);
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

    #[test]
    fn work_of_minutes_runs_one_piece_at_a_time_in_order() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let line = OneAtATime::new("merels-test-line");
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let order = Arc::new(Mutex::new(Vec::new()));
        let (done, finished) = mpsc::channel();
        for n in 0..4 {
            let (running, most, order, done) = (
                Arc::clone(&running),
                Arc::clone(&most),
                Arc::clone(&order),
                done.clone(),
            );
            line.push(move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(20));
                order.lock().unwrap().push(n);
                running.fetch_sub(1, Ordering::SeqCst);
                if n == 1 {
                    panic!("a bad piece of work");
                }
                done.send(n).unwrap();
            });
        }
        for _ in 0..3 {
            finished
                .recv_timeout(std::time::Duration::from_secs(10))
                .unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1, "one at a time");
        assert_eq!(*order.lock().unwrap(), [0, 1, 2, 3], "in the order asked");
    }
}
