//! What a connection is doing, as its watchdog ([`super::conn`]) needs to know: how many
//! requests are in the service, since when it has been idle, and whether the next request's
//! head has begun to arrive.
//!
//! A request counts from the moment its head is complete (hyper calls the service) until its
//! response body is dropped (written out, or abandoned with the connection). [`Tracked`]
//! wraps the service to count them; [`super::io::GuardedIo`] reports reads.
//!
//! Each response body stamps the time whenever hyper asks it for more. On HTTP/2 a client
//! can leave one stream's flow-control window shut while the connection moves: hyper then
//! stops asking that body, its stamp ages, and the watchdog ends the connection once the
//! stamp is older than the write-stall bound (on HTTP/1 the socket itself stalls, which
//! [`super::io::GuardedIo`] bounds).

use core::pin::Pin;
use core::task::{Context, Poll};
use http_body::{Body as HttpBody, Frame, SizeHint};
use hyper::body::Incoming;
use hyper::{Request, Response};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// The connection deadlines: see the `serve` options of the same names.
#[derive(Clone, Copy, Debug)]
pub(super) struct Deadlines {
    /// From accept (or, between requests, from the next head's first byte) to a complete head.
    pub(super) header: Duration,
    /// Idle between requests.
    pub(super) keepalive: Duration,
}

/// What the watchdog should do now.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum WatchdogAction {
    /// Requests are in the service: look again later.
    Busy,
    /// Requests are in the service; a response's stall bound falls due at this instant.
    BusyUntil(Instant),
    /// Nothing is due before this instant.
    WaitUntil(Instant),
    /// A request's head did not arrive in time: close without an answer.
    Close,
    /// Idle for the keep-alive bound: close gracefully.
    Idle,
    /// A response has not been asked for more within the stall bound (an HTTP/2 stream
    /// whose window the client keeps shut): close.
    Stalled,
}

/// Shared between the connection's IO, its service and its watchdog.
#[derive(Debug)]
pub(super) struct Activity {
    born: Instant,
    /// Requests in the service.
    active: AtomicU32,
    /// Requests ever started.
    started: AtomicU64,
    /// Milliseconds after `born` when `active` last fell to 0.
    idle_since: AtomicU64,
    /// Milliseconds after `born`, plus one, of the first byte read while idle; 0 for none.
    head_since: AtomicU64,
    /// The first read has been seen, and whether it began with the HTTP/2 preface.
    first_read: AtomicBool,
    h2: AtomicBool,
    /// The progress stamps of the responses being written (milliseconds after `born`).
    responses: Mutex<Vec<Weak<AtomicU64>>>,
}

impl Activity {
    pub(super) fn new() -> Activity {
        Activity {
            born: Instant::now(),
            active: AtomicU32::new(0),
            started: AtomicU64::new(0),
            idle_since: AtomicU64::new(0),
            head_since: AtomicU64::new(0),
            first_read: AtomicBool::new(false),
            h2: AtomicBool::new(false),
            responses: Mutex::new(Vec::new()),
        }
    }

    /// A stamp for a response about to be written, kept while the response lives.
    fn response_stamp(&self) -> Arc<AtomicU64> {
        let stamp = Arc::new(AtomicU64::new(self.ms(Instant::now())));
        let mut responses = self.responses.lock().unwrap_or_else(|e| e.into_inner());
        responses.retain(|r| r.strong_count() > 0);
        responses.push(Arc::downgrade(&stamp));
        stamp
    }

    /// When the least recently served response of an HTTP/2 connection last moved.
    fn oldest_response(&self) -> Option<Instant> {
        if !self.is_h2() {
            return None;
        }
        let responses = self.responses.lock().unwrap_or_else(|e| e.into_inner());
        responses
            .iter()
            .filter_map(Weak::upgrade)
            .map(|stamp| stamp.load(Relaxed))
            .min()
            .map(|ms| self.at(ms))
    }

    fn ms(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.born).as_millis()).unwrap_or(u64::MAX)
    }

    fn at(&self, ms: u64) -> Instant {
        self.born + Duration::from_millis(ms)
    }

    /// No request is in the service: what is written now is not a response of ours.
    pub(super) fn is_idle(&self) -> bool {
        self.active.load(Relaxed) == 0
    }

    pub(super) fn is_h2(&self) -> bool {
        self.h2.load(Relaxed)
    }

    /// Bytes arrived. While idle on HTTP/1 they are the next request's head, which then has
    /// the header deadline. HTTP/2 reads (pings, settings) say nothing of requests.
    pub(super) fn on_read(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if !self.first_read.swap(true, Relaxed) && bytes.starts_with(b"PRI * HTTP/2.0") {
            self.h2.store(true, Relaxed);
        }
        if !self.is_h2() && self.is_idle() && self.head_since.load(Relaxed) == 0 {
            self.head_since
                .store(self.ms(Instant::now()).saturating_add(1), Relaxed);
        }
    }

    fn begin(&self) {
        self.started.fetch_add(1, Relaxed);
        self.active.fetch_add(1, Relaxed);
        self.head_since.store(0, Relaxed);
    }

    fn end(&self) {
        if self.active.fetch_sub(1, Relaxed) == 1 {
            self.idle_since.store(self.ms(Instant::now()), Relaxed);
            self.head_since.store(0, Relaxed);
        }
    }

    /// What is due at `now` under `limits`, with `stall` the longest a response may go
    /// unasked.
    pub(super) fn verdict(
        &self,
        now: Instant,
        limits: Deadlines,
        stall: Duration,
    ) -> WatchdogAction {
        if !self.is_idle() {
            return match self.oldest_response() {
                Some(moved) if now >= moved + stall => WatchdogAction::Stalled,
                Some(moved) => WatchdogAction::BusyUntil(moved + stall),
                None => WatchdogAction::Busy,
            };
        }
        let (due, then) = if self.started.load(Relaxed) == 0 {
            (self.born + limits.header, WatchdogAction::Close)
        } else {
            match self.head_since.load(Relaxed) {
                0 => (
                    self.at(self.idle_since.load(Relaxed)) + limits.keepalive,
                    WatchdogAction::Idle,
                ),
                head => (self.at(head - 1) + limits.header, WatchdogAction::Close),
            }
        };
        if now >= due {
            then
        } else {
            WatchdogAction::WaitUntil(due)
        }
    }
}

/// Counts a request from service call to response body drop.
struct InService(Arc<Activity>);

impl InService {
    fn new(activity: &Arc<Activity>) -> InService {
        activity.begin();
        InService(Arc::clone(activity))
    }
}

impl Drop for InService {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// A hyper service that counts its requests in an [`Activity`].
#[derive(Clone, Debug)]
pub(super) struct Tracked<S> {
    inner: S,
    activity: Arc<Activity>,
}

impl<S> Tracked<S> {
    pub(super) fn new(inner: S, activity: Arc<Activity>) -> Tracked<S> {
        Tracked { inner, activity }
    }
}

impl<S, B> hyper::service::Service<Request<Incoming>> for Tracked<S>
where
    S: hyper::service::Service<Request<Incoming>, Response = Response<B>>,
    S::Future: Send + 'static,
{
    type Response = Response<TrackedBody<B>>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn call(&self, req: Request<Incoming>) -> Self::Future {
        let guard = InService::new(&self.activity);
        let answer = self.inner.call(req);
        let activity = Arc::clone(&self.activity);
        Box::pin(async move {
            let response = answer.await?;
            // HTTP/1's stalls are the socket's, which `GuardedIo` bounds: no stamp there.
            let stamp = activity.is_h2().then(|| activity.response_stamp());
            Ok(response.map(|inner| TrackedBody {
                inner,
                stamp,
                guard,
            }))
        })
    }
}

/// A response body that keeps its request counted until it is dropped.
pub(super) struct TrackedBody<B> {
    inner: B,
    /// When hyper last asked for more of it (HTTP/2 only).
    stamp: Option<Arc<AtomicU64>>,
    guard: InService,
}

impl<B: HttpBody + Unpin> HttpBody for TrackedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        if let Some(stamp) = &self.stamp {
            stamp.store(self.guard.0.ms(Instant::now()), Relaxed);
        }
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STALL: Duration = Duration::from_secs(30);

    const LIMITS: Deadlines = Deadlines {
        header: Duration::from_secs(10),
        keepalive: Duration::from_secs(75),
    };

    #[test]
    fn a_connection_that_never_sends_a_request_is_closed_at_the_header_deadline() {
        let a = Activity::new();
        let soon = a.born + Duration::from_secs(9);
        assert_eq!(
            a.verdict(soon, LIMITS, STALL),
            WatchdogAction::WaitUntil(a.born + LIMITS.header)
        );
        assert_eq!(
            a.verdict(a.born + LIMITS.header, LIMITS, STALL),
            WatchdogAction::Close
        );
        // Bytes of a head that never completes change nothing.
        a.on_read(b"GET / HT");
        assert_eq!(
            a.verdict(a.born + LIMITS.header, LIMITS, STALL),
            WatchdogAction::Close
        );
    }

    #[test]
    fn between_requests_idle_has_the_keepalive_bound_and_a_started_head_the_header_one() {
        let a = Arc::new(Activity::new());
        drop(InService::new(&a));
        let idle = a.at(a.idle_since.load(Relaxed));
        assert_eq!(
            a.verdict(idle, LIMITS, STALL),
            WatchdogAction::WaitUntil(idle + LIMITS.keepalive)
        );
        assert_eq!(
            a.verdict(idle + LIMITS.keepalive, LIMITS, STALL),
            WatchdogAction::Idle
        );
        a.on_read(b"GET / HTTP/1.1\r\n");
        let head = a.at(a.head_since.load(Relaxed) - 1);
        assert_eq!(
            a.verdict(head + LIMITS.header, LIMITS, STALL),
            WatchdogAction::Close
        );
        // A request in the service holds off every deadline.
        let busy = InService::new(&a);
        assert_eq!(
            a.verdict(head + LIMITS.keepalive * 2, LIMITS, STALL),
            WatchdogAction::Busy
        );
        drop(busy);
        assert!(matches!(
            a.verdict(Instant::now(), LIMITS, STALL),
            WatchdogAction::WaitUntil(_)
        ));
    }

    #[test]
    fn http2_reads_between_requests_do_not_start_a_head() {
        let a = Arc::new(Activity::new());
        a.on_read(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        assert!(a.is_h2());
        drop(InService::new(&a));
        a.on_read(b"\0\0\x08\x06\0\0\0\0\0ping-ack");
        assert_eq!(a.head_since.load(Relaxed), 0);
    }
}
