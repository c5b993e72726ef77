//! The HTTP service (feature `server`): the card's execute URL, the card, a tool list, an
//! OpenAPI document, probes, and a streaming endpoint for uploads of any size.
//!
//! | route | answer |
//! |---|---|
//! | `POST /v1/tools/text-extract-between/versions/1.0.0/execute` | the card's output (200), or the error envelope: 400 `invalid_input`, 413 `payload_too_large`, 422 `unclosed_start_marker` |
//! | `POST …/1.0.0/stream?start=…&end=…[&max_matches=…][&max_match_bytes=…]` | NDJSON: a line per match as it is found, then a summary or an error line |
//! | `GET /v1/tools/text-extract-between/versions/1.0.0` | the card |
//! | `GET /v1/tools` | the list of tools |
//! | `GET /openapi.json` | OpenAPI 3.1 for these routes, with the card's schemas |
//! | `GET /livez`, `GET /healthz` | `{"status":"ok"}` while the process runs |
//! | `GET /readyz` | 200 while taking traffic, 503 once shutdown has begun |
//!
//! Every error, including unknown routes, overload and what hyper refuses before routing, is
//! the JSON envelope; the one exception is a connection closed for a head that did not
//! arrive in time, which gets no answer.
//!
//! The files, by concern: `conn` accepts and watches connections, `io` wraps their
//! sockets, `activity` tracks what each connection does, `admission` holds the slots and
//! the memory budget, `protocol` refuses framings, `routes` maps routes to handlers,
//! `execute` and `upload` are the two tool routes, `query` parses the stream's query,
//! `openapi` documents it all, `signal` ends it.
//!
//! No client can hold the service still: every phase of a connection has a deadline (the
//! first head from accept, idle keep-alive, an execute body, a stream upload that sends
//! nothing, an answer the client does not read), open connections are bounded, slots are
//! taken only for work, the probes take none, and a memory budget covers request bodies and
//! answers until they are written.

mod activity;
mod admission;
mod conn;
mod execute;
mod io;
mod openapi;
mod protocol;
mod query;
mod routes;
mod signal;
mod upload;

pub use openapi::openapi_document;

use axum::Router;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;
use tokio::net::TcpListener;

const TOOL_PATH: &str = "/v1/tools/text-extract-between/versions/1.0.0";

/// File descriptors kept for the process itself beyond its connections (listener, logs,
/// the runtime's own).
const RESERVED_FDS: u64 = 64;

/// Options of `extract-between serve`.
///
/// ```
/// let args = extract_between::server::ServeArgs::default();
/// assert_eq!((args.listen.as_str(), args.idle_timeout), ("127.0.0.1:8080", 30));
/// ```
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the chosen address is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Connections open at once; one more is closed as soon as it is accepted. Lowered to
    /// fit the open-files limit.
    #[arg(long, default_value_t = 4096)]
    pub max_connections: usize,
    /// Execute requests run at once (a request takes its place once its body has arrived);
    /// more are answered 503.
    #[arg(long, default_value_t = 512)]
    pub max_concurrency: usize,
    /// Stream uploads handled at once; more are answered 503.
    #[arg(long, default_value_t = 64)]
    pub max_streams: usize,
    /// Seconds from accepting a connection to the end of its first request's headers (and,
    /// between requests, from the next request's first byte); then it is closed.
    #[arg(long, default_value_t = 10)]
    pub header_timeout: u64,
    /// Seconds a connection may stay idle between requests.
    #[arg(long, default_value_t = 75)]
    pub keepalive_timeout: u64,
    /// Seconds allowed for a client to send a whole execute body.
    #[arg(long, default_value_t = 30)]
    pub body_timeout: u64,
    /// Seconds a stream upload may go without sending a byte, and any answer without the
    /// client reading one; then the request ends and frees its place.
    #[arg(long, default_value_t = 30)]
    pub idle_timeout: u64,
    /// Default and largest `max_match_bytes` of the stream endpoint.
    #[arg(long, default_value_t = 1024 * 1024)]
    pub max_match_bytes: usize,
    /// MiB of execute bodies and answers held at once (at least one largest body, 4 MiB);
    /// a request that would pass it is answered 503.
    #[arg(long, alias = "max-body-memory-mib", default_value_t = 256)]
    pub max_memory_mib: usize,
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs {
            listen: "127.0.0.1:8080".into(),
            max_connections: 4096,
            max_concurrency: 512,
            max_streams: 64,
            header_timeout: 10,
            keepalive_timeout: 75,
            body_timeout: 30,
            idle_timeout: 30,
            max_match_bytes: 1024 * 1024,
            max_memory_mib: 256,
        }
    }
}

/// Runs the service until SIGTERM or Ctrl-C; the CLI's `serve` subcommand.
///
/// ```no_run
/// extract_between::server::main(extract_between::server::ServeArgs::default());
/// ```
pub fn main(mut args: ServeArgs) -> ExitCode {
    init_tracing();
    fit_open_files(&mut args);
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
    runtime.block_on(async move {
        let listener = match TcpListener::bind(&args.listen).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("extract-between: cannot listen on {}: {e}", args.listen);
                return ExitCode::from(2);
            }
        };
        // Before announcing the address: from then on a client may be served and signal us.
        let shutdown = signal::shutdown_signal();
        if let Ok(addr) = listener.local_addr() {
            // On stdout, one line, so scripts and tests can learn the port.
            println!("listening on http://{addr}");
            tracing::info!(%addr, "listening");
        }
        match serve(listener, args, shutdown).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("extract-between: {e}");
                ExitCode::from(2)
            }
        }
    })
}

/// Raises the open-files limit to its hard limit (as Go's runtime does for every server),
/// then lowers `--max-connections` to what fits under it.
fn fit_open_files(args: &mut ServeArgs) {
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read or raise the open-files limit");
            return;
        }
    };
    let room = usize::try_from(limit.saturating_sub(RESERVED_FDS).max(1)).unwrap_or(usize::MAX);
    if args.max_connections > room {
        tracing::warn!(
            max_connections = room,
            open_files = limit,
            "--max-connections lowered to fit the open-files limit"
        );
        args.max_connections = room;
    }
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour only for a terminal: redirected to a file or a log collector, escape codes
    // are noise in every line.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// Serves on `listener` until `shutdown` completes, then lets in-flight requests finish.
///
/// # Errors
///
/// Only a failure to accept connections that is not transient.
///
/// ```no_run
/// # async fn f() -> std::io::Result<()> {
/// use extract_between::server::{ServeArgs, serve};
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// serve(listener, ServeArgs::default(), std::future::pending()).await
/// # }
/// ```
pub async fn serve(
    listener: TcpListener,
    args: ServeArgs,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let limits = conn::ConnLimits {
        deadlines: activity::Deadlines {
            header: Duration::from_secs(args.header_timeout.max(1)),
            keepalive: Duration::from_secs(args.keepalive_timeout.max(1)),
        },
        write_stall: Duration::from_secs(args.idle_timeout.max(1)),
        max_connections: args.max_connections,
    };
    let state = admission::AppState::new(args);
    let ready = std::sync::Arc::clone(&state.ready);
    let shutdown = async move {
        shutdown.await;
        ready.store(false, std::sync::atomic::Ordering::Relaxed);
    };
    conn::accept_loop(listener, routes::router(state), limits, shutdown).await
}

/// The service's routes and layers, for embedding in another axum application.
///
/// ```
/// let app: axum::Router = extract_between::server::router(Default::default());
/// # let _ = app;
/// ```
pub fn router(args: ServeArgs) -> Router {
    routes::router(admission::AppState::new(args))
}

/// The address a `serve` started with `--listen` host:0 would report, for tests.
#[doc(hidden)]
pub fn parse_listening_line(line: &str) -> Option<SocketAddr> {
    line.strip_prefix("listening on http://")?
        .trim()
        .parse()
        .ok()
}
