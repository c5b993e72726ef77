//! The state the handlers share, and what a request may hold of it: a processing slot, a
//! stream slot, and bytes of the memory budget.
//!
//! Slots are taken only for work, never for waiting on a client: an execute request takes
//! its slot once its body has arrived, so clients that trickle bodies cannot starve others
//! (they hold only a connection and the bytes they sent, both bounded). The memory budget
//! holds a permit per byte of every execute body being received and every answer built and
//! not yet written; past it, requests get 503.

use super::auth::Auth;
use super::config::{Secret, ServerConfig};
use super::error::{ApiError, ErrorCode};
use super::metrics::{Metrics, Usage};
use super::request_id::RequestIds;
use axum::body::{Body, Bytes};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// What the handlers share; a clone is one reference count.
#[derive(Clone)]
pub(super) struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// The service's shared parts.
pub(super) struct Shared {
    pub(super) config: Arc<ServerConfig>,
    /// Execute requests being run.
    running: Arc<Semaphore>,
    /// Stream uploads in flight.
    streams: Arc<Semaphore>,
    /// A permit per byte of execute bodies and answers held.
    pub(super) budget: Arc<Semaphore>,
    /// True from the moment shutdown begins: `/readyz` answers 503 and every HTTP/1
    /// answer closes its connection.
    pub(super) draining: Arc<AtomicBool>,
    /// Notified when `--shutdown-timeout` passes: uploads still running end their answers
    /// with a `shutting_down` line.
    pub(super) deadline: Arc<tokio::sync::Notify>,
    pub(super) request_ids: RequestIds,
    pub(super) metrics: Arc<Metrics>,
    /// The accepted bearer tokens; `None` when authentication is off.
    pub(super) auth: Option<Arc<Auth>>,
    /// The OpenAPI document of this configuration (its limits, its security).
    pub(super) openapi: Arc<str>,
}

impl AppState {
    /// The state for `config`.
    ///
    /// # Errors
    ///
    /// The authentication asked for cannot be set up (an unreadable or empty token file).
    pub(super) fn new(config: ServerConfig) -> Result<AppState, super::auth::AuthError> {
        let auth = Auth::load(
            config.auth_token_file.as_deref(),
            config.auth_token.as_ref().map(Secret::expose),
        )?
        .map(Arc::new);
        let budget = config.memory_budget;
        let running = Arc::new(Semaphore::new(config.max_concurrency));
        let streams = Arc::new(Semaphore::new(config.max_streams));
        let budget_sem = Arc::new(Semaphore::new(budget));
        let metrics = Metrics::new(Usage {
            running: (Arc::clone(&running), config.max_concurrency),
            streams: (Arc::clone(&streams), config.max_streams),
            budget: (Arc::clone(&budget_sem), budget),
        });
        let openapi = super::openapi::document(&config, auth.is_some()).to_string();
        Ok(AppState(Arc::new(Shared {
            running,
            streams,
            budget: budget_sem,
            draining: Arc::new(AtomicBool::new(false)),
            deadline: Arc::new(tokio::sync::Notify::new()),
            request_ids: RequestIds::new(),
            metrics: Arc::new(metrics),
            auth,
            openapi: openapi.into(),
            config: Arc::new(config),
        })))
    }

    /// A slot to run an execute request, or why not.
    pub(super) fn run_slot(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.running
            .clone()
            .try_acquire_owned()
            .map_err(|_| overloaded("too many requests in flight; retry shortly"))
    }

    /// A stream upload's slot, or why not.
    pub(super) fn stream_slot(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.streams
            .clone()
            .try_acquire_owned()
            .map_err(|_| overloaded("too many streams in flight; retry shortly"))
    }

    /// `n` bytes of the memory budget, or why not.
    pub(super) fn reserve(&self, n: usize) -> Result<OwnedSemaphorePermit, ApiError> {
        u32::try_from(n)
            .ok()
            .and_then(|n| self.budget.clone().try_acquire_many_owned(n).ok())
            .ok_or_else(|| {
                overloaded("too much memory held by requests and answers; retry shortly")
            })
    }

    /// Parses and runs a body of `len` bytes with `work`, holding `len` more bytes of the
    /// budget for what the parse builds. A large body's work runs on the blocking pool: its
    /// milliseconds of CPU would otherwise hold an async worker, and with it the probes and
    /// every other connection that worker serves.
    pub(super) async fn run_parse<T: Send + 'static>(
        &self,
        len: usize,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let _room = self.reserve(len)?;
        if len < OFFLOAD_BYTES {
            return Ok(work());
        }
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|_| overloaded("the request could not be run; retry shortly"))
    }

    /// `body` as an answer that holds its bytes of the budget until the HTTP layer has
    /// written (or dropped) them, not only until the handler returns: an answer a client does
    /// not read is still memory.
    pub(super) fn budgeted_body(&self, body: String) -> Result<Body, ApiError> {
        self.budgeted_body_holding(body, None)
    }

    /// [`Self::budgeted_body`] for an answer that took `held` of the budget while it was
    /// built; only what it takes beyond that is reserved now.
    pub(super) fn budgeted_body_holding(
        &self,
        body: String,
        held: Option<OwnedSemaphorePermit>,
    ) -> Result<Body, ApiError> {
        let had = held.as_ref().map_or(0, |p| p.num_permits());
        let mut permit = self.reserve(body.len().saturating_sub(had))?;
        if let Some(held) = held {
            permit.merge(held);
        }
        Ok(Body::from(Bytes::from_owner(Budgeted {
            body,
            _permit: permit,
        })))
    }
}

/// Answer bytes and the budget they hold, released together when the last `Bytes` goes.
struct Budgeted {
    body: String,
    _permit: OwnedSemaphorePermit,
}

impl AsRef<[u8]> for Budgeted {
    fn as_ref(&self) -> &[u8] {
        self.body.as_bytes()
    }
}

/// Bodies from this size on are parsed off the async workers: below it a parse holds a
/// worker for about a millisecond at most, less than the hand-over to another thread costs
/// when every request makes one.
const OFFLOAD_BYTES: usize = 1024 * 1024;

/// A refusal for want of room: 503 `overloaded`, with why.
pub(super) fn overloaded(why: &'static str) -> ApiError {
    ApiError::new(ErrorCode::Overloaded, why)
}
