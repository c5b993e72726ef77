//! The HTTP service (feature `server`): the card's execute URL, the card, a tool list, an
//! OpenAPI document, health, and a streaming endpoint for uploads of any size.
//!
//! | route | answer |
//! |---|---|
//! | `POST /v1/tools/text-extract-between/versions/1.0.0/execute` | the card's output (200), or the error envelope: 400 `invalid_input`, 413 `payload_too_large`, 422 `unclosed_start_marker` |
//! | `POST …/1.0.0/stream?start=…&end=…[&max_matches=…][&max_match_bytes=…]` | NDJSON: a line per match as it is found, then a summary or an error line |
//! | `GET /v1/tools/text-extract-between/versions/1.0.0` | the card |
//! | `GET /v1/tools` | the list of tools |
//! | `GET /openapi.json` | OpenAPI 3.1 for these routes, with the card's schemas |
//! | `GET /healthz` | `{"status":"ok"}` |
//!
//! The execute endpoint answers through [`crate::request::execute`], byte for byte what the
//! CLI's tool mode prints. Its body is parsed as JSON whatever the `Content-Type` says, so
//! `curl -d` works as written. Every error, including unknown routes and overload, is the
//! JSON envelope.
//!
//! Robustness: a timeout on receiving headers, on receiving an execute body, and on an idle
//! stream body (no bytes for a while; a steadily flowing upload may last as long as it
//! likes); a concurrency limit that answers 503 instead of exhausting memory, a separate
//! limit on concurrent streams, and a budget for the execute bodies held at once (503 past
//! it, so memory stays bounded however large the bodies of the requests in flight);
//! graceful shutdown on SIGTERM and Ctrl-C, in-flight requests
//! finish; a client that disconnects mid-stream drops its scanner and body at once.

use crate::card::{CARD_JSON, TOOL_ID, TOOL_VERSION};
use crate::markers::Markers;
use crate::request::{self, MAX_REQUEST_BYTES, error_body, payload_too_large_body};
use crate::scanner::ScanError;
use crate::stream::{self, Error as StreamError, MatchStream, Options};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use core::pin::Pin;
use core::task::{Context, Poll};
use futures_core::Stream;
use futures_util::StreamExt;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

const TOOL_PATH: &str = "/v1/tools/text-extract-between/versions/1.0.0";

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
    /// Requests handled at once; more are answered 503.
    #[arg(long, default_value_t = 512)]
    pub max_concurrency: usize,
    /// Stream uploads handled at once; more are answered 503.
    #[arg(long, default_value_t = 64)]
    pub max_streams: usize,
    /// Seconds allowed for a client to send its request headers.
    #[arg(long, default_value_t = 10)]
    pub header_timeout: u64,
    /// Seconds allowed for a client to send a whole execute body.
    #[arg(long, default_value_t = 30)]
    pub body_timeout: u64,
    /// Seconds a stream upload may go without sending a byte.
    #[arg(long, default_value_t = 30)]
    pub idle_timeout: u64,
    /// Default and largest `max_match_bytes` of the stream endpoint.
    #[arg(long, default_value_t = 1024 * 1024)]
    pub max_match_bytes: usize,
    /// MiB of execute request bodies held at once (at least one largest body, 4 MiB); a
    /// request that would pass it is answered 503.
    #[arg(long, default_value_t = 256)]
    pub max_body_memory_mib: usize,
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs {
            listen: "127.0.0.1:8080".into(),
            max_concurrency: 512,
            max_streams: 64,
            header_timeout: 10,
            body_timeout: 30,
            idle_timeout: 30,
            max_match_bytes: 1024 * 1024,
            max_body_memory_mib: 256,
        }
    }
}

#[derive(Clone)]
struct AppState {
    args: Arc<ServeArgs>,
    streams: Arc<Semaphore>,
    /// A permit per byte of the execute bodies being held.
    body_bytes: Arc<Semaphore>,
}

/// Runs the service until SIGTERM or Ctrl-C; the CLI's `serve` subcommand.
///
/// ```no_run
/// extract_between::server::main(extract_between::server::ServeArgs::default());
/// ```
pub fn main(args: ServeArgs) -> ExitCode {
    init_tracing();
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
        let shutdown = shutdown_signal();
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

/// Resolves on SIGTERM or Ctrl-C. The handlers are installed when this is called, not when
/// the future is first polled: `serve` may accept and answer a connection before it polls
/// its shutdown future, and a SIGTERM in that window would have killed the process outright
/// (a flaky test caught it: the server gone 300 ms after SIGTERM with an upload in flight).
fn shutdown_signal() -> impl Future<Output = ()> {
    #[cfg(unix)]
    let (term, int) = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::terminate()).ok(),
            signal(SignalKind::interrupt()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(term) => {},
                () = wait(int) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
        tracing::info!("shutting down: no new connections, finishing in-flight requests");
    }
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
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto::Builder;
    use hyper_util::service::TowerToHyperService;

    let header_timeout = Duration::from_secs(args.header_timeout.max(1));
    let app = router(args);
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    builder.http2().timer(TokioTimer::new());
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Running out of file descriptors and the like pass; back off a little.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let conn = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// The service's routes and layers, for embedding in another axum application.
///
/// ```
/// let app: axum::Router = extract_between::server::router(Default::default());
/// # let _ = app;
/// ```
pub fn router(args: ServeArgs) -> Router {
    // One semaphore shared by every route: `Router::layer` builds a layer per route, so a
    // tower concurrency-limit layer there would limit each route on its own.
    let in_flight = Arc::new(Semaphore::new(args.max_concurrency.max(1)));
    let state = AppState {
        streams: Arc::new(Semaphore::new(args.max_streams.max(1))),
        body_bytes: Arc::new(Semaphore::new(body_budget(&args))),
        args: Arc::new(args),
    };
    let request_ids = Arc::new(AtomicU64::new(1));
    Router::new()
        .route(&format!("{TOOL_PATH}/execute"), post(execute))
        .route(
            &format!("{TOOL_PATH}/stream"),
            post(stream_upload).put(stream_upload),
        )
        .route(TOOL_PATH, get(card))
        .route("/v1/tools", get(tools))
        .route("/openapi.json", get(openapi))
        .route("/healthz", get(healthz))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
        .layer(axum::middleware::from_fn(move |req, next| {
            let id = request_ids.fetch_add(1, Ordering::Relaxed);
            admit(id, in_flight.clone(), req, next)
        }))
}

/// Every request: a place under the concurrency limit (else 503 at once, rather than queueing
/// without bound), a request id, and a debug log line.
async fn admit(
    id: u64,
    in_flight: Arc<Semaphore>,
    req: Request<Body>,
    next: axum::middleware::Next,
) -> Response {
    let Ok(_place) = in_flight.try_acquire_owned() else {
        return json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            error_body(
                "overloaded",
                "too many requests in flight; retry shortly",
                None,
            ),
        );
    };
    // Build the log fields only when they will be written: this runs on every request.
    let logged = tracing::enabled!(tracing::Level::DEBUG)
        .then(|| (req.method().clone(), req.uri().path().to_owned()));
    let mut response = next.run(req).await;
    if let Some((method, path)) = logged {
        tracing::debug!(id, %method, path, status = response.status().as_u16(), "answered");
    }
    let mut digits = String::with_capacity(20);
    request::push_u64(&mut digits, id);
    if let Ok(v) = HeaderValue::from_str(&digits) {
        response.headers_mut().insert("x-request-id", v);
    }
    response
}

fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

async fn not_found() -> Response {
    json_response(
        StatusCode::NOT_FOUND,
        error_body("not_found", "no such route; see GET /openapi.json", None),
    )
}

async fn method_not_allowed() -> Response {
    json_response(
        StatusCode::METHOD_NOT_ALLOWED,
        error_body(
            "method_not_allowed",
            "method not allowed on this route",
            None,
        ),
    )
}

async fn healthz() -> Response {
    json_response(StatusCode::OK, r#"{"status":"ok"}"#.into())
}

async fn card() -> Response {
    json_response(StatusCode::OK, CARD_JSON.into())
}

/// The shipped card, parsed once for the documents built from it.
static CARD: std::sync::LazyLock<serde_json::Value> =
    std::sync::LazyLock::new(|| serde_json::from_str(CARD_JSON).unwrap_or_default());

async fn tools() -> Response {
    let card = &*CARD;
    let list = serde_json::json!({
        "tools": [{
            "id": TOOL_ID,
            "version": TOOL_VERSION,
            "description": card["description"],
            "card_url": TOOL_PATH,
            "execute_url": card["execute_url"],
            "stream_url": format!("{TOOL_PATH}/stream"),
        }]
    });
    json_response(StatusCode::OK, list.to_string())
}

async fn openapi() -> Response {
    static DOCUMENT: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| openapi_document().to_string());
    json_response(StatusCode::OK, DOCUMENT.clone())
}

/// The OpenAPI 3.1 document of the service; request and response schemas are the card's.
///
/// ```
/// let doc = extract_between::server::openapi_document();
/// assert_eq!(doc["openapi"], "3.1.0");
/// ```
pub fn openapi_document() -> serde_json::Value {
    let card = &*CARD;
    let error = serde_json::json!({
        "type": "object",
        "required": ["error"],
        "properties": {"error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "field": {"type": "string"},
                "offset": {"type": "integer"}
            }
        }}
    });
    let err = |d: &str| serde_json::json!({"description": d, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    let json_ok = |d: &str, schema: serde_json::Value| serde_json::json!({"description": d, "content": {"application/json": {"schema": schema}}});
    serde_json::json!({
        "openapi": "3.1.0",
        "info": {"title": "extract-between", "version": env!("CARGO_PKG_VERSION"), "description": card["description"]},
        "paths": {
            format!("{TOOL_PATH}/execute"): {"post": {
                "operationId": "execute",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Input"}}}},
                "responses": {
                    "200": json_ok("Matches", serde_json::json!({"$ref": "#/components/schemas/Output"})),
                    "400": err("invalid_input"),
                    "413": err("payload_too_large"),
                    "415": err("unsupported_encoding"),
                    "422": err("unclosed_start_marker"),
                    "503": err("overloaded")
                }
            }},
            format!("{TOOL_PATH}/stream"): {"post": {
                "operationId": "stream",
                "parameters": [
                    {"name": "start", "in": "query", "required": true, "schema": {"type": "string", "minLength": 1}},
                    {"name": "end", "in": "query", "required": true, "schema": {"type": "string", "minLength": 1}},
                    {"name": "max_matches", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1}},
                    {"name": "max_match_bytes", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1}}
                ],
                "requestBody": {"required": true, "content": {"text/plain": {"schema": {"type": "string"}}}},
                "responses": {
                    "200": {"description": "One JSON object per line: matches, then a summary or an error", "content": {"application/x-ndjson": {"schema": {"type": "object"}}}},
                    "400": err("invalid_input"),
                    "415": err("unsupported_encoding"),
                    "503": err("overloaded")
                }
            }},
            TOOL_PATH: {"get": {"operationId": "card", "responses": {"200": json_ok("The tool card", serde_json::json!({"type": "object"}))}}},
            "/v1/tools": {"get": {"operationId": "tools", "responses": {"200": json_ok("The tools", serde_json::json!({"type": "object"}))}}},
            "/healthz": {"get": {"operationId": "healthz", "responses": {"200": json_ok("Healthy", serde_json::json!({"type": "object"}))}}},
            "/openapi.json": {"get": {"operationId": "openapi", "responses": {"200": json_ok("This document", serde_json::json!({"type": "object"}))}}}
        },
        "components": {"schemas": {
            "Input": card["input_schema"],
            "Output": card["output_schema"],
            "Error": error
        }}
    })
}

/// A compressed body is refused by name (415) rather than scanned as if it were text, where
/// its first byte would be "invalid UTF-8" with no hint why.
fn unsupported_encoding(headers: &HeaderMap) -> Option<Response> {
    let encoding = headers.get(header::CONTENT_ENCODING)?;
    let name = String::from_utf8_lossy(encoding.as_bytes());
    if name.trim().eq_ignore_ascii_case("identity") {
        return None;
    }
    Some(json_response(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        error_body(
            "unsupported_encoding",
            &format!(
                "Content-Encoding {:?} is not supported: send the body uncompressed",
                name.trim()
            ),
            None,
        ),
    ))
}

async fn execute(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    if let Some(refused) = unsupported_encoding(&headers) {
        return refused;
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_REQUEST_BYTES as u64) {
        return json_response(StatusCode::PAYLOAD_TOO_LARGE, payload_too_large_body());
    }
    let timeout = Duration::from_secs(state.args.body_timeout.max(1));
    let read = read_limited(body, declared, &state.body_bytes);
    // The permits live until the answer is built: they stand for the body held till then.
    let (bytes, _permits) = match tokio::time::timeout(timeout, read).await {
        Err(_) => {
            return json_response(
                StatusCode::REQUEST_TIMEOUT,
                error_body(
                    "request_timeout",
                    &format!(
                        "the request body did not arrive within {} s",
                        timeout.as_secs()
                    ),
                    None,
                ),
            );
        }
        Ok(Err(BodyRead::TooLarge)) => {
            return json_response(StatusCode::PAYLOAD_TOO_LARGE, payload_too_large_body());
        }
        Ok(Err(BodyRead::OverBudget)) => {
            return json_response(
                StatusCode::SERVICE_UNAVAILABLE,
                error_body(
                    "overloaded",
                    "too many request bodies held at once; retry shortly",
                    None,
                ),
            );
        }
        Ok(Err(BodyRead::Failed(e))) => {
            return json_response(
                StatusCode::BAD_REQUEST,
                error_body(
                    "invalid_input",
                    &format!("could not read the request body: {e}"),
                    None,
                ),
            );
        }
        Ok(Ok(bytes)) => bytes,
    };
    let reply = request::execute(&bytes);
    let status = StatusCode::from_u16(reply.outcome.http_status()).unwrap_or(StatusCode::OK);
    json_response(status, reply.body)
}

enum BodyRead {
    TooLarge,
    OverBudget,
    Failed(axum::Error),
}

/// Permits of the execute body budget: `--max-body-memory-mib`, but never less than one
/// largest body (else a valid request could never be served), nor more than a semaphore holds.
fn body_budget(args: &ServeArgs) -> usize {
    args.max_body_memory_mib
        .saturating_mul(1024 * 1024)
        .clamp(MAX_REQUEST_BYTES, Semaphore::MAX_PERMITS)
}

/// Reads an execute body of at most [`MAX_REQUEST_BYTES`], holding a permit of `budget` for
/// every byte received (what the body occupies: room reserved for the declared length is not
/// touched until written, so a slow client holds only what it has sent).
async fn read_limited(
    body: Body,
    declared: Option<u64>,
    budget: &Arc<Semaphore>,
) -> Result<(Vec<u8>, Option<OwnedSemaphorePermit>), BodyRead> {
    let mut permits: Option<OwnedSemaphorePermit> = None;
    // `execute` answered 413 for a declared length over the limit.
    let mut out = Vec::with_capacity(declared.map_or(0, |n| n as usize).min(MAX_REQUEST_BYTES));
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(BodyRead::Failed)?;
        if out.len() + chunk.len() > MAX_REQUEST_BYTES {
            return Err(BodyRead::TooLarge);
        }
        // Within the limit, so it fits a `u32`.
        let more = budget
            .clone()
            .try_acquire_many_owned(chunk.len() as u32)
            .map_err(|_| BodyRead::OverBudget)?;
        match &mut permits {
            Some(held) => held.merge(more),
            None => permits = Some(more),
        }
        out.extend_from_slice(&chunk);
    }
    Ok((out, permits))
}

/// The stream endpoint's query, validated.
struct StreamQuery {
    markers: Markers,
    options: Options,
}

fn parse_stream_query(
    query: Option<&str>,
    max_match_bytes: usize,
) -> Result<StreamQuery, (String, String)> {
    let mut start = None;
    let mut end = None;
    let mut options = Options::default().max_match_bytes(max_match_bytes);
    let bad = |field: &str, message: String| (field.to_owned(), message);
    for (key, value) in form_pairs(query.unwrap_or(""))? {
        let slot = match key.as_str() {
            "start" => &mut start,
            "end" => &mut end,
            "max_matches" => {
                let n = value
                    .parse::<u64>()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| {
                        bad(
                            "max_matches",
                            format!(
                                "max_matches must be an integer of at least 1 (it is {value:?})"
                            ),
                        )
                    })?;
                options = options.max_matches(n);
                continue;
            }
            "max_match_bytes" => {
                let n = value
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| (1..=max_match_bytes).contains(&n))
                    .ok_or_else(|| {
                        bad(
                            "max_match_bytes",
                            format!("max_match_bytes must be an integer from 1 to {max_match_bytes} (it is {value:?})"),
                        )
                    })?;
                options = options.max_match_bytes(n);
                continue;
            }
            _ => {
                return Err(bad(
                    &key,
                    format!(
                        "unknown query parameter {key:?}: allowed are start, end, max_matches and max_match_bytes"
                    ),
                ));
            }
        };
        if slot.replace(value).is_some() {
            return Err(bad(
                &key,
                format!("query parameter {key} appears more than once"),
            ));
        }
    }
    let start = start.ok_or_else(|| bad("start", "start is required (query parameter)".into()))?;
    let end = end.ok_or_else(|| bad("end", "end is required (query parameter)".into()))?;
    let markers = Markers::new(start, end).map_err(|e| bad(e.which().field(), e.to_string()))?;
    Ok(StreamQuery { markers, options })
}

/// `application/x-www-form-urlencoded` pairs, percent-decoded (`+` is a space). A `%` not
/// followed by two hex digits, or a decoded name or value that is not UTF-8, is an error
/// naming the parameter: decoding it leniently (as browsers do) would search for a marker
/// the client never sent, such as U+FFFD for a cut `%E3%80`.
fn form_pairs(query: &str) -> Result<Vec<(String, String)>, (String, String)> {
    /// The decoded text, or why it is not text (with the byte offset in `s`).
    fn decode(s: &str) -> Result<String, String> {
        let bytes = s.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'+' => out.push(b' '),
                b'%' => {
                    let hex = bytes
                        .get(i + 1..i + 3)
                        .and_then(|h| std::str::from_utf8(h).ok());
                    match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                        Some(b) => {
                            out.push(b);
                            i += 2;
                        }
                        None => {
                            return Err(format!(
                                "'%' at byte {i} is not followed by two hex digits (a literal % is written %25)"
                            ));
                        }
                    }
                }
                b => out.push(b),
            }
            i += 1;
        }
        String::from_utf8(out).map_err(|e| {
            // Where the bad byte came from in `s`: count escapes and pluses back.
            let bad = e.utf8_error().valid_up_to();
            let (mut at, mut decoded) = (0, 0);
            while decoded < bad {
                at += if bytes[at] == b'%' { 3 } else { 1 };
                decoded += 1;
            }
            format!("it is not valid UTF-8 once percent-decoded (from byte {at})")
        })
    }
    let mut pairs = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let key = decode(k)
            .map_err(|why| (k.to_owned(), format!("query parameter name {k:?}: {why}")))?;
        let value =
            decode(v).map_err(|why| (key.clone(), format!("query parameter {key}: {why}")))?;
        pairs.push((key, value));
    }
    Ok(pairs)
}

async fn stream_upload(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if let Some(refused) = unsupported_encoding(&headers) {
        return refused;
    }
    let query = match parse_stream_query(query.as_deref(), state.args.max_match_bytes) {
        Ok(q) => q,
        Err((field, message)) => {
            return json_response(
                StatusCode::BAD_REQUEST,
                error_body("invalid_input", &message, Some(&field)),
            );
        }
    };
    let Ok(permit) = state.streams.clone().try_acquire_owned() else {
        return json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            error_body(
                "overloaded",
                "too many streams in flight; retry shortly",
                None,
            ),
        );
    };
    let mut source = IdleTimeout::new(
        body.into_data_stream(),
        Duration::from_secs(state.args.idle_timeout.max(1)),
    )
    .fuse();
    // The answer waits for the upload's first bytes (or its end, error or idle timeout):
    // that first read is what makes hyper send `100 Continue` to a client that asked for
    // it (curl does for bodies over 1 MiB). Answered at once, the 200 went out instead, and
    // curl held the body back for its one-second wait.
    let first = source.next().await;
    let source = futures_util::stream::iter(first).chain(source);
    let matches = stream::matches(source, &query.markers, query.options);
    let body = Ndjson {
        matches,
        _permit: permit,
        done: false,
    };
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-ndjson"),
        )],
        Body::from_stream(body),
    )
        .into_response()
}

/// Why the upload stopped arriving.
#[derive(Debug)]
enum UploadError {
    Read(axum::Error),
    Idle(Duration),
}

impl std::fmt::Display for UploadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UploadError::Read(e) => write!(f, "reading the request body: {e}"),
            UploadError::Idle(d) => write!(f, "no bytes arrived for {} s", d.as_secs()),
        }
    }
}

/// Ends a body stream with an error when no chunk arrives for `idle`.
struct IdleTimeout<S> {
    inner: S,
    idle: Duration,
    sleep: Pin<Box<tokio::time::Sleep>>,
}

impl<S> IdleTimeout<S> {
    fn new(inner: S, idle: Duration) -> Self {
        IdleTimeout {
            inner,
            idle,
            sleep: Box::pin(tokio::time::sleep(idle)),
        }
    }
}

impl<S> Stream for IdleTimeout<S>
where
    S: Stream<Item = Result<Bytes, axum::Error>> + Unpin,
{
    type Item = Result<Bytes, UploadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(item) => {
                let deadline = tokio::time::Instant::now() + this.idle;
                this.sleep.as_mut().reset(deadline);
                Poll::Ready(item.map(|r| r.map_err(UploadError::Read)))
            }
            Poll::Pending => match this.sleep.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Some(Err(UploadError::Idle(this.idle)))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

/// The NDJSON response body: match lines batched into chunks as they are found, then the
/// summary or the error line. Then, before the response ends, the rest of the upload is read
/// and dropped unscanned: ending the response while the client is still sending makes the
/// server close a connection with unread data, which resets it — curl then fails with "Send
/// failure: Broken pipe" (exit 55), and a reset can even discard the answer before the
/// client has read it.
struct Ndjson<S> {
    matches: MatchStream<S>,
    _permit: OwnedSemaphorePermit,
    done: bool,
}

const NDJSON_BATCH: usize = 32 * 1024;

/// Chunks drained per poll before yielding to the runtime: a fast client must not keep one
/// poll spinning.
const DRAIN_PER_POLL: usize = 64;

impl<S> Stream for Ndjson<S>
where
    S: Stream<Item = Result<Bytes, UploadError>> + Unpin,
{
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            // The answer is out; drain the upload (see the type's docs).
            let Some(source) = this.matches.source_mut() else {
                return Poll::Ready(None);
            };
            for _ in 0..DRAIN_PER_POLL {
                match source.poll_next_unpin(cx) {
                    Poll::Ready(Some(Ok(_))) => {}
                    // Ended, failed or idle too long: nothing more to wait for.
                    Poll::Ready(Some(Err(_)) | None) => return Poll::Ready(None),
                    Poll::Pending => return Poll::Pending,
                }
            }
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        // Bytes, not a `String`: match content is valid UTF-8 from the scanner and is escaped
        // as bytes, without checking it again per line.
        let mut out = Vec::new();
        loop {
            match this.matches.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(m))) => {
                    if out.capacity() == 0 {
                        // Room for a whole batch at once, not a doubling per few lines.
                        out.reserve(NDJSON_BATCH + 256);
                    }
                    let (start, end) = m.span();
                    out.extend_from_slice(b"{\"match\":");
                    request::push_json_bytes(&mut out, m.bytes());
                    request::push_offsets(&mut out, start, end);
                    out.extend_from_slice(b"}\n");
                    if out.len() >= NDJSON_BATCH {
                        return Poll::Ready(Some(Ok(Bytes::from(out))));
                    }
                }
                Poll::Ready(Some(Err(e))) => {
                    this.done = true;
                    out.extend_from_slice(stream_error_line(&e).as_bytes());
                    out.push(b'\n');
                    return Poll::Ready(Some(Ok(Bytes::from(out))));
                }
                Poll::Ready(None) => {
                    this.done = true;
                    let summary = format!(
                        "{{\"done\":true,\"matches\":{},\"truncated\":{}}}\n",
                        this.matches.delivered(),
                        this.matches.truncated().unwrap_or(false)
                    );
                    out.extend_from_slice(summary.as_bytes());
                    return Poll::Ready(Some(Ok(Bytes::from(out))));
                }
                Poll::Pending if out.is_empty() => return Poll::Pending,
                Poll::Pending => return Poll::Ready(Some(Ok(Bytes::from(out)))),
            }
        }
    }
}

fn stream_error_line(e: &StreamError<UploadError>) -> String {
    let value = match e {
        StreamError::Scan(ScanError::Unclosed { marker }) => serde_json::json!({"error": {
            "code": "unclosed_start_marker", "message": "unclosed start marker",
            "offset": marker.utf16, "byte_offset": marker.byte}}),
        StreamError::Scan(ScanError::InvalidUtf8 { offset, .. }) => serde_json::json!({"error": {
            "code": "invalid_utf8", "message": e.to_string(), "byte_offset": offset, "offset": offset}}),
        StreamError::MatchTooLarge { start, .. } => serde_json::json!({"error": {
            "code": "match_too_large", "message": e.to_string(),
            "offset": start.utf16, "byte_offset": start.byte}}),
        StreamError::Upstream(UploadError::Idle(_)) => serde_json::json!({"error": {
            "code": "request_timeout", "message": e.to_string()}}),
        StreamError::Upstream(UploadError::Read(_)) => serde_json::json!({"error": {
            "code": "body_error", "message": e.to_string()}}),
    };
    value.to_string()
}

/// The address a `serve` started with `--listen` host:0 would report, for tests.
#[doc(hidden)]
pub fn parse_listening_line(line: &str) -> Option<SocketAddr> {
    line.strip_prefix("listening on http://")?
        .trim()
        .parse()
        .ok()
}
