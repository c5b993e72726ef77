//! `/metrics`: OpenMetrics text, through `prometheus-client` (the Prometheus
//! project's own Rust client: typed label sets, no global registry, no default features to
//! trim). Counters are atomics; a request costs two label look-ups under a read lock.
//!
//! Series: `extract_between_http_requests_total{route,method,status}` (499 for a client
//! that went away before its answer ended),
//! `extract_between_http_request_duration_seconds{route}` (to the answer's head; a stream
//! upload goes on after it), `extract_between_http_requests_in_flight`,
//! `extract_between_scanned_bytes_total{route}`, `extract_between_matches_total{route}`,
//! `extract_between_rejected_total{reason}`, the slots and memory budget in use, and the
//! process's memory, CPU and open files read from `/proc` at each scrape.

use axum::body::Body;
use axum::extract::MatchedPath;
use axum::http::{Method, Request, StatusCode};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::Semaphore;

/// What `/metrics` answers: OpenMetrics 1.0 text, as `prometheus-client` encodes it.
pub(super) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: &'static str,
    method: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    reason: &'static str,
}

/// Why a request or connection was turned away.
#[derive(Clone, Copy, Debug)]
pub(super) enum Rejection {
    /// No slot or no room in the memory budget (503).
    Overloaded,
    /// A deadline passed: head, body, idle upload, stalled answer.
    Timeout,
    /// A body, target or head over its limit (413, 414, 431).
    TooLarge,
    /// No valid bearer token (401).
    Unauthorized,
    /// `--max-connections` were open.
    ConnectionLimit,
}

impl Rejection {
    fn label(self) -> &'static str {
        match self {
            Rejection::Overloaded => "overloaded",
            Rejection::Timeout => "timeout",
            Rejection::TooLarge => "too_large",
            Rejection::Unauthorized => "unauthorized",
            Rejection::ConnectionLimit => "connection_limit",
        }
    }
}

type HistogramMaker = fn() -> Histogram;

/// The service's metrics and their registry.
#[derive(Debug)]
pub(super) struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    durations: Family<RouteLabels, Histogram, HistogramMaker>,
    /// Each route's histogram, resolved at its first request: later ones skip the family's
    /// lock and hash (a series appears only once its route is used, as before).
    route_durations: [std::sync::OnceLock<Histogram>; ROUTE_SLOTS],
    in_flight: Gauge,
    scanned: Family<RouteLabels, Counter>,
    matches: Family<RouteLabels, Counter>,
    rejected: Family<ReasonLabels, Counter>,
}

impl Metrics {
    /// The metrics, with collectors that read the admission state at each scrape.
    pub(super) fn new(usage: Usage) -> Metrics {
        let requests = Family::<RequestLabels, Counter>::default();
        let durations = Family::<RouteLabels, Histogram, HistogramMaker>::new_with_constructor(
            // 100 µs to ~26 s, a bucket per factor of 4.
            || Histogram::new(exponential_buckets(0.0001, 4.0, 10)),
        );
        let in_flight = Gauge::default();
        let scanned = Family::<RouteLabels, Counter>::default();
        let matches = Family::<RouteLabels, Counter>::default();
        let rejected = Family::<ReasonLabels, Counter>::default();
        let mut registry = Registry::default();
        let ours = registry.sub_registry_with_prefix("extract_between");
        ours.register(
            "http_requests",
            "HTTP requests answered, by route template, method and status",
            requests.clone(),
        );
        ours.register(
            "http_request_duration_seconds",
            "Seconds from a request's head to its answer's head, by route template",
            durations.clone(),
        );
        ours.register(
            "http_requests_in_flight",
            "Requests being handled (to the answer's head)",
            in_flight.clone(),
        );
        ours.register(
            "scanned_bytes",
            "Bytes of text scanned, by route",
            scanned.clone(),
        );
        ours.register("matches", "Matches delivered, by route", matches.clone());
        ours.register(
            "rejected",
            "Requests and connections turned away, by reason",
            rejected.clone(),
        );
        for reason in [
            Rejection::Overloaded,
            Rejection::Timeout,
            Rejection::TooLarge,
            Rejection::Unauthorized,
            Rejection::ConnectionLimit,
        ] {
            // Present from the start at 0, so alerts on rates see a series.
            let _ = rejected.get_or_create(&ReasonLabels {
                reason: reason.label(),
            });
        }
        ours.register_collector(Box::new(usage));
        registry.register_collector(Box::new(Process));
        Metrics {
            registry,
            requests,
            durations,
            route_durations: std::array::from_fn(|_| std::sync::OnceLock::new()),
            in_flight,
            scanned,
            matches,
            rejected,
        }
    }

    /// Counts a turned-away request or connection.
    pub(super) fn reject(&self, why: Rejection) {
        self.rejected
            .get_or_create(&ReasonLabels {
                reason: why.label(),
            })
            .inc();
    }

    /// Counts text scanned and matches delivered on `route`.
    pub(super) fn scanned(&self, route: &'static str, bytes: u64, matches: u64) {
        let labels = RouteLabels { route };
        if bytes > 0 {
            self.scanned.get_or_create(&labels).inc_by(bytes);
        }
        if matches > 0 {
            self.matches.get_or_create(&labels).inc_by(matches);
        }
    }

    /// The scanned-bytes and matches counters of `route`, for a request that counts as it
    /// goes (a stream upload) without a look-up each time.
    pub(super) fn route_counters(&self, route: &'static str) -> (Counter, Counter) {
        let labels = RouteLabels { route };
        (
            self.scanned.get_or_create_owned(&labels),
            self.matches.get_or_create_owned(&labels),
        )
    }

    /// The text exposition, as `/metrics` answers it.
    pub(super) fn render(&self) -> String {
        let mut out = String::with_capacity(8 * 1024);
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// What the admission state holds, read at each scrape.
#[derive(Debug)]
pub(super) struct Usage {
    pub(super) running: (Arc<Semaphore>, usize),
    pub(super) streams: (Arc<Semaphore>, usize),
    pub(super) budget: (Arc<Semaphore>, usize),
}

impl Collector for Usage {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let used = |(s, total): &(Arc<Semaphore>, usize)| {
            i64::try_from(total.saturating_sub(s.available_permits())).unwrap_or(i64::MAX)
        };
        for (name, help, value) in [
            (
                "execute_slots_in_use",
                "Execute requests running (of --max-concurrency)",
                used(&self.running),
            ),
            (
                "stream_slots_in_use",
                "Stream uploads in flight (of --max-streams)",
                used(&self.streams),
            ),
            (
                "memory_budget_used_bytes",
                "Bytes of the memory budget held by bodies and unwritten answers",
                used(&self.budget),
            ),
        ] {
            let gauge = ConstGauge::new(value);
            gauge.encode(encoder.encode_descriptor(name, help, None, gauge.metric_type())?)?;
        }
        Ok(())
    }
}

/// The process's own figures, from `/proc/self` (Linux; elsewhere nothing).
#[derive(Debug)]
struct Process;

impl Collector for Process {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let Some(p) = process_figures() else {
            return Ok(());
        };
        let cpu = ConstCounter::new(p.cpu_seconds);
        cpu.encode(encoder.encode_descriptor(
            "process_cpu_seconds",
            "User and system CPU time spent, in seconds",
            None,
            cpu.metric_type(),
        )?)?;
        for (name, help, value) in [
            (
                "process_resident_memory_bytes",
                "Resident memory size in bytes",
                p.resident_bytes,
            ),
            (
                "process_virtual_memory_bytes",
                "Virtual memory size in bytes",
                p.virtual_bytes,
            ),
            ("process_open_fds", "Open file descriptors", p.open_fds),
            ("process_max_fds", "The open-files limit", p.max_fds),
        ] {
            let gauge = ConstGauge::new(i64::try_from(value).unwrap_or(i64::MAX));
            gauge.encode(encoder.encode_descriptor(name, help, None, gauge.metric_type())?)?;
        }
        Ok(())
    }
}

struct ProcessFigures {
    cpu_seconds: f64,
    resident_bytes: u64,
    virtual_bytes: u64,
    open_fds: u64,
    max_fds: u64,
}

#[cfg(target_os = "linux")]
fn process_figures() -> Option<ProcessFigures> {
    // Fields after the command name, which may hold spaces and parentheses.
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 2..)?.split(' ').collect();
    // utime and stime are fields 14 and 15 of stat(5), in USER_HZ ticks (100 on Linux).
    let ticks = |i: usize| fields.get(i - 3).and_then(|v| v.parse::<u64>().ok());
    let cpu_seconds = (ticks(14)? + ticks(15)?) as f64 / 100.0;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib = |field: &str| {
        status
            .lines()
            .find(|l| l.starts_with(field))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map(|v| v * 1024)
    };
    let open_fds = std::fs::read_dir("/proc/self/fd").ok()?.count() as u64;
    let max_fds = rlimit::getrlimit(rlimit::Resource::NOFILE).ok()?.0;
    Some(ProcessFigures {
        cpu_seconds,
        resident_bytes: kib("VmRSS:")?,
        virtual_bytes: kib("VmSize:")?,
        open_fds,
        max_fds,
    })
}

#[cfg(not(target_os = "linux"))]
fn process_figures() -> Option<ProcessFigures> {
    None
}

/// The route label of a request: its route's template, never the raw path.
fn route_label(req: &Request<Body>) -> (usize, &'static str) {
    let unmatched = (ROUTE_SLOTS - 1, "unmatched");
    let Some(matched) = req.extensions().get::<MatchedPath>() else {
        return unmatched;
    };
    super::urls::ROUTES
        .iter()
        .position(|r| *r == matched.as_str())
        .map_or(unmatched, |i| (i, super::urls::ROUTES[i]))
}

/// A slot per route template, and one for requests that match none.
const ROUTE_SLOTS: usize = super::urls::ROUTES.len() + 1;

fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::HEAD => "HEAD",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        Method::PATCH => "PATCH",
        _ => "other",
    }
}

/// What a status says was refused, if anything.
fn rejection(route: &str, status: StatusCode) -> Option<Rejection> {
    match status.as_u16() {
        401 => Some(Rejection::Unauthorized),
        408 => Some(Rejection::Timeout),
        413 | 414 | 431 => Some(Rejection::TooLarge),
        // `/readyz` answers 503 while draining: that is a state, not a refusal.
        503 if route != super::urls::READYZ => Some(Rejection::Overloaded),
        _ => None,
    }
}

/// A request being counted: its labels, when it began, and its place in the in-flight
/// gauge (given back on drop too: a client that goes away mid-request ends the future, and
/// the request is counted as [`CLIENT_CLOSED`]).
pub(super) struct Observation<'a> {
    metrics: &'a Metrics,
    /// The route's place in `route_durations`.
    slot: usize,
    route: &'static str,
    method: &'static str,
    began: Instant,
    /// Whether the answer's head went out (and the request was counted, or its body will).
    answered: bool,
}

impl Metrics {
    /// Starts counting `req`.
    pub(super) fn observe(&self, req: &Request<Body>) -> Observation<'_> {
        self.in_flight.inc();
        let (slot, route) = route_label(req);
        Observation {
            metrics: self,
            slot,
            route,
            method: method_label(req.method()),
            began: Instant::now(),
            answered: false,
        }
    }
}

/// Marks a response whose body counts the request itself when it ends (a stream upload:
/// its head says 200 before the upload has arrived, and a client may still abandon it).
#[derive(Clone, Copy, Debug)]
pub(super) struct CountedAtEnd;

/// The status counted for a request whose client went away before its answer ended
/// (nginx's "client closed request").
pub(super) const CLIENT_CLOSED: u16 = 499;

impl Observation<'_> {
    /// Counts how long the answer's head took and, unless its body counts itself
    /// ([`CountedAtEnd`]), its status.
    pub(super) fn answered<B>(mut self, response: &axum::http::Response<B>) {
        self.answered = true;
        let Observation {
            metrics,
            slot,
            route,
            method,
            began,
            ..
        } = self;
        metrics.route_durations[slot]
            .get_or_init(|| {
                metrics
                    .durations
                    .get_or_create_owned(&RouteLabels { route })
            })
            .observe(began.elapsed().as_secs_f64());
        if response.extensions().get::<CountedAtEnd>().is_some() {
            return;
        }
        let status = response.status();
        metrics.count_request(route, method, status.as_u16());
        if let Some(why) = rejection(route, status) {
            metrics.reject(why);
        }
    }
}

impl Metrics {
    /// Counts a request answered with `status` on `route`.
    pub(super) fn count_request(&self, route: &'static str, method: &'static str, status: u16) {
        self.requests
            .get_or_create(&RequestLabels {
                route,
                method,
                status,
            })
            .inc();
    }
}

impl Drop for Observation<'_> {
    fn drop(&mut self) {
        self.metrics.in_flight.dec();
        if !self.answered {
            self.metrics
                .count_request(self.route, self.method, CLIENT_CLOSED);
        }
    }
}
