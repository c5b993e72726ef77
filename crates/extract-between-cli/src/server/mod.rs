//! The HTTP service: the card's execute URL, the card, a tool list, an
//! OpenAPI document, probes, and a streaming endpoint for uploads of any size.
//!
//! | route | answer |
//! |---|---|
//! | `POST /v1/tools/text-extract-between/versions/1.0.0/execute` | the card's output (200), or the error envelope: 400 `invalid_input`, 413 `payload_too_large`, 422 `unclosed_start_marker` |
//! | `POST …/1.0.0/stream?start=…&end=…[&max_matches=…][&max_match_bytes=…]` | NDJSON: a line per match as it is found, then a summary or an error line |
//! | `GET /v1/tools/text-extract-between/versions/1.0.0` | the card |
//! | `GET /v1/tools` | the list of tools |
//! | `GET /openapi.json` | OpenAPI 3.1 for these routes, with the card's schemas |
//! | `GET /metrics` | Prometheus text format |
//! | `GET /livez`, `GET /healthz` | `{"status":"ok"}` while the process runs |
//! | `GET /readyz` | 200 while taking traffic, 503 once shutdown has begun |
//!
//! With tokens configured, every route but the probes requires `Authorization: Bearer`.
//!
//! Every error, including unknown routes, overload and what hyper refuses before routing, is
//! the JSON envelope; the one exception is a connection closed for a head that did not
//! arrive in time, which gets no answer.
//!
//! Layers, each importing only those below it: at the bottom what every handler shares
//! (route paths, the error type, the shared state with its slots and budget, the body
//! reader); then the handlers and the middleware every request passes; `routes` on top puts
//! them together. Connections (accept, deadlines, the socket wrapper) sit beside the router.
//!
//! No client can hold the service still: every phase of a connection has a deadline (the
//! first head from accept, idle keep-alive, an execute body, a stream upload that sends
//! nothing, an answer the client does not read), open connections are bounded, slots are
//! taken only for work, the probes take none, and a memory budget covers request bodies and
//! answers until they are written.

mod activity;
mod auth;
mod body;
mod config;
mod conn;
mod cors;
mod edge;
mod error;
mod execute;
mod io;
mod mcp_route;
mod metrics;
mod openapi;
mod origin;
mod origin_name;
mod playground;
mod protocol;
mod query;
mod request_id;
mod routes;
mod signal;
mod state;
mod upload;
mod urls;

pub use auth::AuthError;
pub use config::{LogFormat, Secret, ServeArgs, defaults};

use config::ServerConfig;
pub use openapi::openapi_document;

use axum::Router;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;
use tokio::net::TcpListener;

/// File descriptors kept for the process itself beyond its connections (listener, logs,
/// the runtime's own).
const RESERVED_FDS: u64 = 64;

/// Connections the `--metrics-listen` port keeps open at once: a scraper or two, and room
/// for a curl beside them. Their descriptors come out of the main port's share.
const METRICS_CONNECTIONS: usize = 8;

/// Runs the service until SIGTERM or Ctrl-C; the CLI's `serve` subcommand.
///
/// ```no_run
/// extract_between_cli::server::main(extract_between_cli::server::ServeArgs::default());
/// ```
pub fn main(args: ServeArgs) -> ExitCode {
    config::init_tracing(args.log_format);
    crate::alloc::tune_for_service();
    let mut config = ServerConfig::new(args);
    fit_open_files(&mut config);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("extract-between: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let code = runtime.block_on(async move {
        let listener = match TcpListener::bind(&config.listen).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("extract-between: cannot listen on {}: {e}", config.listen);
                return ExitCode::from(2);
            }
        };
        let metrics_listener = match bind_metrics(config.metrics_listen.as_deref()).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("extract-between: {e}");
                return ExitCode::from(2);
            }
        };
        // Before announcing the address: from then on a client may be served and signal us.
        let mut signals = signal::Signals::install();
        let shutdown = async move {
            signals.recv().await;
            tokio::spawn(async move {
                signals.recv().await;
                tracing::warn!("second signal: exiting without finishing in-flight requests");
                std::process::exit(1);
            });
        };
        let addr = listener.local_addr().ok();
        let app = match prepare(config) {
            Ok(app) => app,
            Err(e) => {
                eprintln!("extract-between: {e}");
                return ExitCode::from(2);
            }
        };
        if let Some(addr) = addr {
            if !addr.ip().is_loopback() && app.state.auth.is_none() {
                tracing::warn!(
                    %addr,
                    "listening beyond loopback without authentication: anyone who reaches \
                     this address can use the service (set --auth-token-file or \
                     EXTRACT_BETWEEN_AUTH_TOKEN)"
                );
            }
            // On stdout, one line, so scripts and tests can learn the port (a reader that
            // has gone by the time it is written is no failure of the service).
            let _ = writeln!(std::io::stdout(), "listening on http://{addr}");
            // The page a person opens first, in the log (stdout's lines are for scripts).
            tracing::info!(%addr, playground = %format_args!("http://{addr}/playground/"), "listening");
        }
        if let Some(addr) = metrics_listener.as_ref().and_then(|l| l.local_addr().ok()) {
            let _ = writeln!(std::io::stdout(), "metrics on http://{addr}/metrics");
        }
        match app.run(listener, metrics_listener, shutdown).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("extract-between: {e}");
                ExitCode::from(2)
            }
        }
    });
    // Requests still running past --shutdown-timeout are dropped here, not waited for.
    runtime.shutdown_timeout(Duration::from_millis(100));
    code
}

/// Raises the open-files limit to its hard limit (as Go's runtime does for every server),
/// then lowers `--max-connections` to what fits under it.
fn fit_open_files(config: &mut ServerConfig) {
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read or raise the open-files limit");
            return;
        }
    };
    let scrapers = if config.metrics_listen.is_some() {
        METRICS_CONNECTIONS as u64
    } else {
        0
    };
    let room =
        usize::try_from(limit.saturating_sub(RESERVED_FDS + scrapers).max(1)).unwrap_or(usize::MAX);
    if config.max_connections > room {
        tracing::warn!(
            max_connections = room,
            open_files = limit,
            "--max-connections lowered to fit the open-files limit"
        );
        config.max_connections = room;
    }
}

/// The service built from its options, not yet serving.
struct Prepared {
    state: state::AppState,
    limits: conn::ConnLimits,
    drain: Duration,
    shutdown_timeout: Duration,
}

fn prepare(config: ServerConfig) -> Result<Prepared, AuthError> {
    let limits = conn::ConnLimits {
        deadlines: activity::Deadlines {
            header: config.header_timeout,
            keepalive: config.keepalive_timeout,
        },
        write_stall: config.idle_timeout,
        max_connections: config.max_connections,
    };
    let drain = config.drain;
    let shutdown_timeout = config.shutdown_timeout;
    Ok(Prepared {
        state: state::AppState::new(config)?,
        limits,
        drain,
        shutdown_timeout,
    })
}

impl Prepared {
    /// Serves until `shutdown` completes; then drains, stops accepting, and gives in-flight
    /// requests the shutdown timeout.
    async fn run(
        self,
        listener: TcpListener,
        metrics_listener: Option<TcpListener>,
        shutdown: impl Future<Output = ()>,
    ) -> std::io::Result<()> {
        let Prepared {
            state,
            limits,
            drain,
            shutdown_timeout,
        } = self;
        if let Some(auth) = &state.auth {
            std::sync::Arc::clone(auth).watch();
        }
        let draining = std::sync::Arc::clone(&state.draining);
        let metrics = std::sync::Arc::clone(&state.metrics);
        let (drain_begun, drain_seen) = tokio::sync::watch::channel(false);
        let drained = async move {
            shutdown.await;
            draining.store(true, std::sync::atomic::Ordering::Relaxed);
            let _ = drain_begun.send(true);
            tracing::info!(
                seconds = drain.as_secs(),
                "draining: /readyz answers 503 and answers close their connections"
            );
            tokio::time::sleep(drain).await;
            tracing::info!(
                timeout = shutdown_timeout.as_secs(),
                "no new connections; finishing in-flight requests"
            );
        };
        let deadline = std::sync::Arc::clone(&state.deadline);
        // The scraper's listener lives as long as the service does, under the main port's
        // deadlines and a cap of its own, so that idle sockets there cannot take the
        // descriptors the main port needs.
        let scraper = metrics_listener.map(|l| {
            let app = routes::metrics_router(state.clone());
            let limits = conn::ConnLimits {
                max_connections: METRICS_CONNECTIONS,
                ..limits
            };
            let metrics = std::sync::Arc::clone(&state.metrics);
            AbortOnDrop(tokio::spawn(async move {
                // Never draining: scrapes go on until the process ends.
                let (_steady, never) = tokio::sync::watch::channel(false);
                let finish = conn::Finish {
                    timeout: Duration::ZERO,
                    deadline: std::sync::Arc::default(),
                };
                let forever = std::future::pending();
                conn::accept_loop(l, app, limits, metrics, never, forever, finish).await
            }))
        });
        let app = routes::router(state);
        let finish = conn::Finish {
            timeout: shutdown_timeout,
            deadline,
        };
        let served =
            conn::accept_loop(listener, app, limits, metrics, drain_seen, drained, finish).await;
        drop(scraper);
        served
    }
}

/// A task ended when its handle goes.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The `--metrics-listen` listener, when one is asked for.
async fn bind_metrics(addr: Option<&str>) -> Result<Option<TcpListener>, String> {
    let Some(addr) = addr else {
        return Ok(None);
    };
    TcpListener::bind(addr)
        .await
        .map(Some)
        .map_err(|e| format!("cannot listen on {addr} (--metrics-listen): {e}"))
}

/// Serves on `listener` until `shutdown` completes, then drains for `--drain-seconds`
/// (`/readyz` failing, HTTP/1 answers closing their connections), stops accepting, and
/// lets in-flight requests finish for at most `--shutdown-timeout`.
///
/// # Errors
///
/// The options cannot be served (an unreadable token file), or accepting connections
/// failed in a way that is not transient.
///
/// ```no_run
/// # async fn f() -> std::io::Result<()> {
/// use extract_between_cli::server::{ServeArgs, serve};
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// serve(listener, ServeArgs::default(), std::future::pending()).await
/// # }
/// ```
pub async fn serve(
    listener: TcpListener,
    args: ServeArgs,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let config = ServerConfig::new(args);
    let metrics_listener = bind_metrics(config.metrics_listen.as_deref())
        .await
        .map_err(std::io::Error::other)?;
    prepare(config)
        .map_err(std::io::Error::other)?
        .run(listener, metrics_listener, shutdown)
        .await
}

/// The service's routes and layers, for embedding in another axum application.
///
/// # Errors
///
/// The authentication asked for cannot be set up (an unreadable or empty token file).
///
/// ```
/// let app: axum::Router = extract_between_cli::server::router(Default::default()).unwrap();
/// # let _ = app;
/// ```
pub fn router(args: ServeArgs) -> Result<Router, AuthError> {
    Ok(routes::router(state::AppState::new(ServerConfig::new(
        args,
    ))?))
}
