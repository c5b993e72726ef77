//! Request ids: the `x-request-id` a proxy in front already gave a request is kept (when it
//! is short and made of letters, digits, `.`, `_` and `-`, as proxies make them), so one id
//! follows the request through the proxy's logs and ours; otherwise the service makes one
//! unique across its replicas: a random prefix drawn once a process, then a counter. Any
//! other character could forge structure in a log line (the text format writes the id
//! unquoted inside its span).

use axum::http::{HeaderMap, HeaderValue};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// The header that carries the id, in and out.
pub(super) const HEADER: &str = "x-request-id";
/// The longest incoming id kept.
pub(super) const MAX_INCOMING_BYTES: usize = 128;

/// Makes the ids of one process.
#[derive(Debug)]
pub(super) struct RequestIds {
    prefix: String,
    next: AtomicU64,
}

impl RequestIds {
    pub(super) fn new() -> RequestIds {
        // The standard library seeds every RandomState from the operating system's
        // randomness: a hash of nothing under a fresh one is 64 random bits.
        let random = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        RequestIds {
            prefix: format!("{random:016x}-"),
            next: AtomicU64::new(1),
        }
    }

    /// The id of a request: the incoming one when acceptable, else a new one.
    pub(super) fn of(&self, headers: &HeaderMap) -> HeaderValue {
        if let Some(incoming) = headers.get(HEADER).filter(|v| acceptable(v)) {
            return incoming.clone();
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let mut id = String::with_capacity(self.prefix.len() + 20);
        id.push_str(&self.prefix);
        id.push_str(itoa::Buffer::new().format(n));
        HeaderValue::try_from(id).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
    }
}

fn acceptable(v: &HeaderValue) -> bool {
    let b = v.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_INCOMING_BYTES
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incoming_ids_are_kept_when_short_and_plain() {
        let ids = RequestIds::new();
        let mut h = HeaderMap::new();
        h.insert(HEADER, HeaderValue::from_static("proxy-7f3a"));
        assert_eq!(ids.of(&h), "proxy-7f3a");
        h.insert(HEADER, HeaderValue::from_static("lb.7_f3a-9"));
        assert_eq!(ids.of(&h), "lb.7_f3a-9");
        let forged = "x}:extract_between_cli::server::auth:token=leaked{";
        for bad in [
            "has space",
            "",
            &"x".repeat(MAX_INCOMING_BYTES + 1),
            forged,
            "a=b",
            "id\"q",
        ] {
            h.insert(HEADER, HeaderValue::from_str(bad).unwrap());
            assert_ne!(ids.of(&h).as_bytes(), bad.as_bytes());
        }
    }

    #[test]
    fn made_ids_differ_within_and_across_processes() {
        let (a, b) = (RequestIds::new(), RequestIds::new());
        let none = HeaderMap::new();
        let first = a.of(&none);
        assert_ne!(first, a.of(&none));
        assert_ne!(first, b.of(&none));
        assert!(first.to_str().unwrap().ends_with("-1"));
    }
}
