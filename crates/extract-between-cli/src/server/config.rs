//! `serve`'s options. Each is a flag and an `EXTRACT_BETWEEN_…` environment variable (the
//! flag wins), as containers are configured; and the log output they choose.

use std::path::PathBuf;

/// Options of `extract-between serve`.
///
/// ```
/// let args = extract_between_cli::server::ServeArgs::default();
/// assert_eq!((args.listen.as_str(), args.idle_timeout), ("127.0.0.1:8080", 30));
/// ```
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the chosen address is printed).
    #[arg(long, env = "EXTRACT_BETWEEN_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Connections open at once; one more is closed as soon as it is accepted. Lowered to
    /// fit the open-files limit.
    #[arg(long, env = "EXTRACT_BETWEEN_MAX_CONNECTIONS", default_value_t = 4096)]
    pub max_connections: usize,
    /// Execute requests run at once (a request takes its place once its body has arrived);
    /// more are answered 503.
    #[arg(long, env = "EXTRACT_BETWEEN_MAX_CONCURRENCY", default_value_t = 512)]
    pub max_concurrency: usize,
    /// Stream uploads handled at once; more are answered 503.
    #[arg(long, env = "EXTRACT_BETWEEN_MAX_STREAMS", default_value_t = 64)]
    pub max_streams: usize,
    /// Seconds from accepting a connection to the end of its first request's headers (and,
    /// between requests, from the next request's first byte); then it is closed.
    #[arg(long, env = "EXTRACT_BETWEEN_HEADER_TIMEOUT", default_value_t = 10)]
    pub header_timeout: u64,
    /// Seconds a connection may stay idle between requests.
    #[arg(long, env = "EXTRACT_BETWEEN_KEEPALIVE_TIMEOUT", default_value_t = 75)]
    pub keepalive_timeout: u64,
    /// Seconds allowed for a client to send a whole execute body.
    #[arg(long, env = "EXTRACT_BETWEEN_BODY_TIMEOUT", default_value_t = 30)]
    pub body_timeout: u64,
    /// Seconds a stream upload may go without sending a byte, and any answer without the
    /// client reading one; then the request ends and frees its place.
    #[arg(long, env = "EXTRACT_BETWEEN_IDLE_TIMEOUT", default_value_t = 30)]
    pub idle_timeout: u64,
    /// Default and largest `max_match_bytes` of the stream endpoint.
    #[arg(long, env = "EXTRACT_BETWEEN_MAX_MATCH_BYTES", default_value_t = 1024 * 1024)]
    pub max_match_bytes: usize,
    /// MiB of execute bodies and answers held at once (at least one largest body, 4 MiB);
    /// a request that would pass it is answered 503.
    #[arg(
        long,
        alias = "max-body-memory-mib",
        env = "EXTRACT_BETWEEN_MAX_MEMORY_MIB",
        default_value_t = 256
    )]
    pub max_memory_mib: usize,
    /// Seconds to keep serving after SIGTERM or Ctrl-C, with `/readyz` answering 503 and
    /// every HTTP/1 answer closing its connection, so load balancers move traffic away
    /// before the listener closes.
    #[arg(long, env = "EXTRACT_BETWEEN_DRAIN_SECONDS", default_value_t = 5)]
    pub drain_seconds: u64,
    /// Seconds in-flight requests (stream uploads too) get to finish once the drain is
    /// over; then they are ended and the process exits. A second signal exits at once.
    #[arg(long, env = "EXTRACT_BETWEEN_SHUTDOWN_TIMEOUT", default_value_t = 25)]
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
    /// loopback ones; repeat or separate with commas; `*` allows any. A request with
    /// another `Origin` gets 403.
    #[arg(
        long,
        env = "EXTRACT_BETWEEN_ALLOW_ORIGIN",
        value_name = "ORIGIN",
        value_delimiter = ','
    )]
    pub allow_origin: Vec<String>,
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
            drain_seconds: 5,
            shutdown_timeout: 25,
            auth_token_file: None,
            auth_token: None,
            allow_origin: Vec::new(),
            log_format: LogFormat::Text,
        }
    }
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
