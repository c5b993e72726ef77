//! `serve`'s options. Each is a flag and an `EXTRACT_BETWEEN_…` environment variable (the
//! flag wins), as containers are configured. [`ServeArgs`] is what a user gives (each default
//! and each range written once, in [`defaults`] and the flags' value parsers); the service
//! runs on [`ServerConfig`], made from it once, with durations and byte counts.

use std::path::PathBuf;
use std::time::Duration;

/// Every option's default, in one place for the flags, [`ServeArgs::default`] and the docs.
pub mod defaults {
    /// `--listen`.
    pub const LISTEN: &str = "127.0.0.1:8080";
    /// `--max-connections`.
    pub const MAX_CONNECTIONS: usize = 4096;
    /// `--max-concurrency`.
    pub const MAX_CONCURRENCY: usize = 512;
    /// `--max-streams`.
    pub const MAX_STREAMS: usize = 64;
    /// `--header-timeout`, seconds.
    pub const HEADER_TIMEOUT: u64 = 10;
    /// `--keepalive-timeout`, seconds.
    pub const KEEPALIVE_TIMEOUT: u64 = 75;
    /// `--body-timeout`, seconds.
    pub const BODY_TIMEOUT: u64 = 30;
    /// `--idle-timeout`, seconds.
    pub const IDLE_TIMEOUT: u64 = 30;
    /// `--max-match-bytes`.
    pub const MAX_MATCH_BYTES: usize = 1024 * 1024;
    /// `--max-memory-mib`.
    pub const MAX_MEMORY_MIB: usize = 256;
    /// `--drain-seconds`.
    pub const DRAIN_SECONDS: u64 = 5;
    /// `--shutdown-timeout`, seconds.
    pub const SHUTDOWN_TIMEOUT: u64 = 25;
}

/// The longest timeout accepted, in seconds (a day): longer is a typo, not a policy.
const MAX_SECONDS: u64 = 86_400;

/// A count option: 1 or more.
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// Options of `extract-between serve`.
///
/// ```
/// let args = extract_between_cli::server::ServeArgs::default();
/// assert_eq!((args.listen.as_str(), args.idle_timeout), ("127.0.0.1:8080", 30));
/// // Each timeout is at least a second; counts at least one.
/// use clap::Parser;
/// #[derive(Parser)]
/// struct Cli { #[command(flatten)] serve: extract_between_cli::server::ServeArgs }
/// assert!(Cli::try_parse_from(["x", "--idle-timeout", "0"]).is_err());
/// assert!(Cli::try_parse_from(["x", "--max-streams", "0"]).is_err());
/// ```
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the chosen address is printed).
    #[arg(long, env = "EXTRACT_BETWEEN_LISTEN", default_value = defaults::LISTEN)]
    pub listen: String,
    /// Connections open at once; one more is closed as soon as it is accepted. Lowered to
    /// fit the open-files limit.
    #[arg(long, env = "EXTRACT_BETWEEN_MAX_CONNECTIONS", default_value_t = defaults::MAX_CONNECTIONS, value_parser = at_least_one)]
    pub max_connections: usize,
    /// Execute requests run at once (a request takes its place once its body has arrived);
    /// more are answered 503.
    #[arg(long, env = "EXTRACT_BETWEEN_MAX_CONCURRENCY", default_value_t = defaults::MAX_CONCURRENCY, value_parser = at_least_one)]
    pub max_concurrency: usize,
    /// Stream uploads handled at once; more are answered 503.
    #[arg(long, env = "EXTRACT_BETWEEN_MAX_STREAMS", default_value_t = defaults::MAX_STREAMS, value_parser = at_least_one)]
    pub max_streams: usize,
    /// Seconds from accepting a connection to the end of its first request's headers (and,
    /// between requests, from the next request's first byte); then it is closed.
    #[arg(long, env = "EXTRACT_BETWEEN_HEADER_TIMEOUT", default_value_t = defaults::HEADER_TIMEOUT, value_parser = clap::value_parser!(u64).range(1..=MAX_SECONDS))]
    pub header_timeout: u64,
    /// Seconds a connection may stay idle between requests.
    #[arg(long, env = "EXTRACT_BETWEEN_KEEPALIVE_TIMEOUT", default_value_t = defaults::KEEPALIVE_TIMEOUT, value_parser = clap::value_parser!(u64).range(1..=MAX_SECONDS))]
    pub keepalive_timeout: u64,
    /// Seconds allowed for a client to send a whole execute body.
    #[arg(long, env = "EXTRACT_BETWEEN_BODY_TIMEOUT", default_value_t = defaults::BODY_TIMEOUT, value_parser = clap::value_parser!(u64).range(1..=MAX_SECONDS))]
    pub body_timeout: u64,
    /// Seconds a stream upload may go without sending a byte, and any answer without the
    /// client reading one; then the request ends and frees its place.
    #[arg(long, env = "EXTRACT_BETWEEN_IDLE_TIMEOUT", default_value_t = defaults::IDLE_TIMEOUT, value_parser = clap::value_parser!(u64).range(1..=MAX_SECONDS))]
    pub idle_timeout: u64,
    /// Default and largest `max_match_bytes` of the stream endpoint.
    #[arg(long, env = "EXTRACT_BETWEEN_MAX_MATCH_BYTES", default_value_t = defaults::MAX_MATCH_BYTES, value_parser = at_least_one)]
    pub max_match_bytes: usize,
    /// MiB of execute bodies and answers held at once (at least one largest body, 4 MiB);
    /// a request that would pass it is answered 503.
    #[arg(
        long,
        alias = "max-body-memory-mib",
        env = "EXTRACT_BETWEEN_MAX_MEMORY_MIB",
        default_value_t = defaults::MAX_MEMORY_MIB,
        value_parser = at_least_one
    )]
    pub max_memory_mib: usize,
    /// Seconds to keep serving after SIGTERM or Ctrl-C, with `/readyz` answering 503 and
    /// every HTTP/1 answer closing its connection, so load balancers move traffic away
    /// before the listener closes.
    #[arg(long, env = "EXTRACT_BETWEEN_DRAIN_SECONDS", default_value_t = defaults::DRAIN_SECONDS, value_parser = clap::value_parser!(u64).range(0..=MAX_SECONDS))]
    pub drain_seconds: u64,
    /// Seconds in-flight requests (stream uploads too) get to finish once the drain is
    /// over; then they are ended and the process exits. A second signal exits at once.
    #[arg(long, env = "EXTRACT_BETWEEN_SHUTDOWN_TIMEOUT", default_value_t = defaults::SHUTDOWN_TIMEOUT, value_parser = clap::value_parser!(u64).range(0..=MAX_SECONDS))]
    pub shutdown_timeout: u64,
    /// A file of bearer tokens, one a line (blank lines and lines starting with `#` are
    /// skipped). Every route but the probes then requires `Authorization: Bearer <token>`.
    /// Re-read when it changes, so tokens can be rotated without a restart.
    #[arg(long, env = "EXTRACT_BETWEEN_AUTH_TOKEN_FILE", value_name = "PATH")]
    pub auth_token_file: Option<PathBuf>,
    /// A bearer token, from the environment variable (a flag would show it in `ps`).
    #[arg(
        long,
        env = "EXTRACT_BETWEEN_AUTH_TOKEN",
        hide = true,
        hide_env_values = true
    )]
    pub auth_token: Option<Secret>,
    /// Origins (as `https://app.example`) that may use `/mcp` from a browser, beside the
    /// loopback ones: their pages may run a whole MCP session (CORS preflights answered, the
    /// MCP headers allowed and `Mcp-Session-Id` readable). Repeat or separate with commas;
    /// `*` allows any. A request with another `Origin` gets 403. Scheme and host are compared
    /// without case and the scheme's default port is dropped (`HTTPS://App.Example:443` is
    /// `https://app.example`); a value no browser sends (a path, a wildcard host, a trailing
    /// dot) is refused at start.
    #[arg(
        long,
        env = "EXTRACT_BETWEEN_ALLOW_ORIGIN",
        value_name = "ORIGIN",
        value_delimiter = ',',
        value_parser = super::origin_name::parse_flag
    )]
    pub allow_origin: Vec<String>,
    /// Origins (as `https://app.example`) whose browser pages may call the HTTP routes: CORS
    /// preflights are answered and the answers made readable to them. Repeat or separate
    /// with commas; `*` allows any. Off by default (no CORS header is sent). Origins are
    /// compared as `--allow-origin` compares them. `/mcp` keeps its own Origin check
    /// (`--allow-origin`).
    #[arg(
        long,
        env = "EXTRACT_BETWEEN_CORS_ORIGIN",
        value_name = "ORIGIN",
        value_delimiter = ',',
        value_parser = super::origin_name::parse_flag
    )]
    pub cors_origin: Vec<String>,
    /// Hosts (as `mcp.example` or `mcp.example:8080`) that `/mcp` answers beside the
    /// loopback names when the service listens on loopback; repeat or separate with commas;
    /// `*` allows any. Another `Host` gets 403 (DNS-rebinding protection).
    #[arg(
        long,
        env = "EXTRACT_BETWEEN_ALLOW_HOST",
        value_name = "HOST",
        value_delimiter = ','
    )]
    pub allow_host: Vec<String>,
    /// A second address that serves `GET /metrics` alone, without a token, for a cluster's
    /// scraper when tokens guard the main address (which still serves `/metrics` too, with a
    /// token). Keep it off the public network.
    #[arg(long, env = "EXTRACT_BETWEEN_METRICS_LISTEN", value_name = "ADDR")]
    pub metrics_listen: Option<String>,
    /// Log lines as text, or as JSON objects (one a line, with the request id).
    #[arg(
        long,
        env = "EXTRACT_BETWEEN_LOG_FORMAT",
        value_enum,
        default_value_t = LogFormat::Text
    )]
    pub log_format: LogFormat,
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs {
            listen: defaults::LISTEN.into(),
            max_connections: defaults::MAX_CONNECTIONS,
            max_concurrency: defaults::MAX_CONCURRENCY,
            max_streams: defaults::MAX_STREAMS,
            header_timeout: defaults::HEADER_TIMEOUT,
            keepalive_timeout: defaults::KEEPALIVE_TIMEOUT,
            body_timeout: defaults::BODY_TIMEOUT,
            idle_timeout: defaults::IDLE_TIMEOUT,
            max_match_bytes: defaults::MAX_MATCH_BYTES,
            max_memory_mib: defaults::MAX_MEMORY_MIB,
            drain_seconds: defaults::DRAIN_SECONDS,
            shutdown_timeout: defaults::SHUTDOWN_TIMEOUT,
            auth_token_file: None,
            auth_token: None,
            allow_origin: Vec::new(),
            cors_origin: Vec::new(),
            allow_host: Vec::new(),
            metrics_listen: None,
            log_format: LogFormat::Text,
        }
    }
}

/// What the service runs on: [`ServeArgs`] checked and converted once.
#[derive(Debug)]
pub(super) struct ServerConfig {
    pub(super) listen: String,
    /// Open connections at once.
    pub(super) max_connections: usize,
    /// Execute (and MCP) requests run at once.
    pub(super) max_concurrency: usize,
    /// Stream uploads at once.
    pub(super) max_streams: usize,
    /// Default and largest `max_match_bytes` of the stream route.
    pub(super) max_match_bytes: usize,
    /// Bytes of bodies and answers held at once.
    pub(super) memory_budget: usize,
    /// Accept to the end of the first head (and a later head from its first byte).
    pub(super) header_timeout: Duration,
    pub(super) keepalive_timeout: Duration,
    /// A whole execute body.
    pub(super) body_timeout: Duration,
    /// A stream upload sending nothing, an answer not read.
    pub(super) idle_timeout: Duration,
    /// Serving on after the signal, with `/readyz` failing.
    pub(super) drain: Duration,
    /// In-flight requests after the drain.
    pub(super) shutdown_timeout: Duration,
    pub(super) auth_token_file: Option<PathBuf>,
    pub(super) auth_token: Option<Secret>,
    pub(super) allow_origin: Vec<String>,
    /// Origins CORS answers (`*`: any); empty: no CORS.
    pub(super) cors_origin: Vec<String>,
    /// `Host`s `/mcp` answers beside loopback ones, checked only when `loopback` is set.
    pub(super) allow_host: Vec<String>,
    /// The service listens on a loopback address alone.
    pub(super) loopback: bool,
    pub(super) metrics_listen: Option<String>,
}

impl ServerConfig {
    /// The configuration of `args`. Ranges are clap's to enforce for the command line; for
    /// `ServeArgs` built in code, a zero count or timeout is raised to its least (1).
    pub(super) fn new(args: ServeArgs) -> ServerConfig {
        let seconds = |s: u64| Duration::from_secs(s.clamp(1, MAX_SECONDS));
        ServerConfig {
            loopback: super::origin::is_loopback(&args.listen),
            max_connections: args.max_connections.max(1),
            max_concurrency: args.max_concurrency.max(1),
            max_streams: args.max_streams.max(1),
            max_match_bytes: args.max_match_bytes.max(1),
            // Never less than one largest body (else a valid request could never be
            // served), nor more than a semaphore holds.
            memory_budget: args.max_memory_mib.saturating_mul(1024 * 1024).clamp(
                extract_between::request::MAX_REQUEST_BYTES,
                tokio::sync::Semaphore::MAX_PERMITS,
            ),
            header_timeout: seconds(args.header_timeout),
            keepalive_timeout: seconds(args.keepalive_timeout),
            body_timeout: seconds(args.body_timeout),
            idle_timeout: seconds(args.idle_timeout),
            drain: Duration::from_secs(args.drain_seconds.min(MAX_SECONDS)),
            shutdown_timeout: Duration::from_secs(args.shutdown_timeout.min(MAX_SECONDS)),
            listen: args.listen,
            auth_token_file: args.auth_token_file,
            auth_token: args.auth_token,
            // The command line's parser normalised them already; `ServeArgs` built in code
            // are normalised here (a value that is no origin stays, and never matches).
            allow_origin: normalised(args.allow_origin),
            cors_origin: normalised(args.cors_origin),
            allow_host: args.allow_host,
            metrics_listen: args.metrics_listen,
        }
    }
}

fn normalised(origins: Vec<String>) -> Vec<String> {
    origins
        .into_iter()
        .map(|o| super::origin_name::parse_flag(&o).unwrap_or(o))
        .collect()
}

/// How log lines are written to stderr.
///
/// ```
/// use extract_between_cli::server::LogFormat;
/// assert_ne!(LogFormat::Text, LogFormat::Json);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (coloured only on a terminal).
    Text,
    /// One JSON object a line, with the request's id among the span fields.
    Json,
}

/// A value that must not reach logs: its `Debug` form is redacted.
///
/// ```
/// let token = extract_between_cli::server::Secret::from("s3cret".to_owned());
/// assert_eq!(format!("{token:?}"), "Secret(***)");
/// assert_eq!(token.expose(), "s3cret");
/// ```
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// The value itself.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Installs the log subscriber: `RUST_LOG` filters (default `info`), lines go to stderr.
pub(super) fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        // Colour only for a terminal: redirected to a file or a log collector, escape codes
        // are noise in every line.
        LogFormat::Text => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init(),
        LogFormat::Json => builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
    };
}
