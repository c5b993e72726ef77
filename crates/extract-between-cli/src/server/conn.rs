//! Accepting connections and watching each one.
//!
//! At most `--max-connections` are open at once; one more is closed as soon as it is
//! accepted, so a flood of idle sockets cannot take every file descriptor and starve
//! `accept` (which would lock out health checks too). Each connection has a watchdog that
//! applies the deadlines hyper cannot: the first request's head must be complete within
//! `--header-timeout` of the accept (HTTP/1 and HTTP/2 alike: a silent socket, a preface
//! alone, a HEADERS frame never finished), and a connection idle between requests is closed
//! after `--keepalive-timeout`. Writes that stall are cut off by [`GuardedIo`].

use super::activity::{Activity, Deadlines, Tracked, WatchdogAction};
use super::io::GuardedIo;
use super::metrics::{Metrics, Rejection};
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::time::Instant;

/// After a graceful close has begun on an idle connection, how long the client has to go.
const GRACE: Duration = Duration::from_secs(1);

/// What the accept loop needs to know.
#[derive(Clone, Copy, Debug)]
pub(super) struct ConnLimits {
    pub(super) deadlines: Deadlines,
    /// A write that cannot move for this long fails.
    pub(super) write_stall: Duration,
    pub(super) max_connections: usize,
}

/// How the requests in flight at shutdown end: within `timeout`, or, past it, uploads are
/// told through `deadline` to end their answers, and get [`LAST_LINES`] to do so.
pub(super) struct Finish {
    pub(super) timeout: Duration,
    pub(super) deadline: Arc<tokio::sync::Notify>,
}

/// How long uploads still running at `--shutdown-timeout` get to send their last line.
const LAST_LINES: Duration = Duration::from_millis(500);

/// Serves `app` on `listener` until `shutdown` completes, then lets the open connections
/// finish their requests for at most `finish.timeout` (idle ones are closed at once).
/// `draining` turns true when the drain begins: HTTP/2 connections get GOAWAY then (HTTP/1
/// answers say `Connection: close` from the same moment, in the middleware).
pub(super) async fn accept_loop(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    metrics: Arc<Metrics>,
    draining: watch::Receiver<bool>,
    shutdown: impl Future<Output = ()>,
    finish: Finish,
) -> std::io::Result<()> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        // The watchdog bounds heads, from the accept on; hyper's own timer would start only
        // once the first bytes are in and would cut keep-alive idleness at the header bound.
        .header_read_timeout(None)
        // A client that half-closes after its request still gets the answer.
        .half_close(true)
        // Above the service's own limit, so that it answers with the envelope.
        .max_headers(2 * super::protocol::MAX_HEADER_FIELDS)
        // A connection's read buffer, kept while it is open: the memory each one costs. The
        // heads `protocol` accepts (32 KiB target, 16 KiB of fields) fit in it.
        .max_buf_size(64 * 1024)
        // Queue answers as the `Bytes` they are instead of copying them into hyper's buffer:
        // the budget's permits ride on those `Bytes` until they are written.
        .writev(true);
    builder.http2().timer(TokioTimer::new());
    let builder = Arc::new(builder);
    let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let slots = Arc::new(Semaphore::new(max));
    let (stop, stopped) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like pass; back off a little.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::debug!(max, "connection refused: --max-connections are open");
            metrics.reject(Rejection::ConnectionLimit);
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(
            stream,
            Arc::clone(&builder),
            app.clone(),
            limits,
            Arc::clone(&metrics),
            Phases {
                draining: draining.clone(),
                stopped: stopped.clone(),
            },
            slot,
        ));
    }
    drop(listener);
    let _ = stop.send(true);
    // Every connection holds a slot until it ends.
    let every = u32::try_from(max).unwrap_or(u32::MAX);
    if tokio::time::timeout(finish.timeout, slots.acquire_many(every))
        .await
        .is_err()
    {
        let open = max.saturating_sub(slots.available_permits());
        tracing::warn!(
            open,
            "--shutdown-timeout passed: ending the requests still in flight"
        );
        finish.deadline.notify_waiters();
        let _ = tokio::time::timeout(LAST_LINES, slots.acquire_many(every)).await;
    }
    Ok(())
}

/// The service's shutdown as a connection sees it: the drain has begun (HTTP/2 gets GOAWAY),
/// the listener has stopped (every connection closes once idle).
struct Phases {
    draining: watch::Receiver<bool>,
    stopped: watch::Receiver<bool>,
}

/// Serves one connection under its watchdog.
async fn connection(
    stream: TcpStream,
    builder: Arc<Builder<TokioExecutor>>,
    app: Router,
    limits: ConnLimits,
    metrics: Arc<Metrics>,
    phases: Phases,
    _slot: OwnedSemaphorePermit,
) {
    let Phases {
        mut draining,
        mut stopped,
    } = phases;
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(GuardedIo::new(
        stream,
        Arc::clone(&activity),
        limits.write_stall,
    ));
    let service = Tracked::new(TowerToHyperService::new(app), Arc::clone(&activity));
    let conn = builder.serve_connection_with_upgrades(io, service);
    let mut conn = std::pin::pin!(conn);
    // When a graceful close began (keep-alive bound or shutdown).
    let mut closing: Option<Instant> = None;
    let mut stopping = false;
    let mut drained = *draining.borrow();
    let wake = tokio::time::sleep(Duration::ZERO);
    let mut wake = std::pin::pin!(wake);
    loop {
        let now = Instant::now();
        // A second beyond the write bound: an upload idle that long ends its own answer
        // first, with its last line.
        let stall = limits.write_stall + GRACE;
        let next = match activity.verdict(now.into_std(), limits.deadlines, stall) {
            // Nothing to decide while requests run; their own timeouts bound them.
            // Looked at again within a stall bound: a response may begin meanwhile.
            WatchdogAction::Busy => {
                now + limits
                    .deadlines
                    .header
                    .min(limits.deadlines.keepalive)
                    .min(stall)
            }
            WatchdogAction::BusyUntil(at) => Instant::from_std(at),
            WatchdogAction::Stalled => {
                metrics.reject(Rejection::Timeout);
                return;
            }
            // Looked at again within a header bound: a head may start meanwhile, and its
            // deadline is nearer than the keep-alive one.
            WatchdogAction::WaitUntil(at) if closing.is_none() => {
                Instant::from_std(at).min(now + limits.deadlines.header.min(stall))
            }
            WatchdogAction::Close => {
                metrics.reject(Rejection::Timeout);
                return;
            }
            WatchdogAction::WaitUntil(_) | WatchdogAction::Idle => match closing {
                // Idle, and the graceful close has had its time.
                Some(began) if now >= began + GRACE => return,
                Some(began) => began + GRACE,
                None => {
                    conn.as_mut().graceful_shutdown();
                    closing = Some(now);
                    now + GRACE
                }
            },
        };
        wake.as_mut().reset(next);
        tokio::select! {
            served = conn.as_mut() => {
                if served.as_ref().err().is_some_and(|e| stalled(e.as_ref())) {
                    metrics.reject(Rejection::Timeout);
                }
                return;
            }
            () = &mut wake => {}
            // GOAWAY: in-flight streams finish, new ones go to another instance.
            _ = draining.changed(), if !drained => {
                drained = true;
                if activity.is_h2() && closing.is_none() {
                    conn.as_mut().graceful_shutdown();
                    closing = Some(Instant::now());
                }
            }
            _ = stopped.changed(), if !stopping => {
                stopping = true;
                if closing.is_none() {
                    conn.as_mut().graceful_shutdown();
                    closing = Some(Instant::now());
                }
            }
        }
    }
}

/// Whether a connection ended because a write stalled past its bound (`GuardedIo`'s
/// `TimedOut`), somewhere in the error's chain.
fn stalled(mut e: &(dyn std::error::Error + 'static)) -> bool {
    loop {
        if e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
        {
            return true;
        }
        match e.source() {
            Some(next) => e = next,
            None => return false,
        }
    }
}
