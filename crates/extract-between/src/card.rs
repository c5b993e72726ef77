//! The tool card this crate implements, and the limits it fixes.
//!
//! The card (`card/text-extract-between-1.0.0.json`) is the published contract. It ships
//! inside the crate and is the single source of the limits below: a test parses the card and
//! asserts that every constant equals the card's number, so the two cannot drift apart.

/// The card, byte for byte as published.
///
/// ```
/// assert!(extract_between::card::CARD_JSON.contains("\"id\": \"text-extract-between\""));
/// ```
pub const CARD_JSON: &str = include_str!("../card/text-extract-between-1.0.0.json");

/// The card's `id`.
///
/// ```
/// assert_eq!(extract_between::card::TOOL_ID, "text-extract-between");
/// ```
pub const TOOL_ID: &str = "text-extract-between";

/// The card's `version`.
///
/// ```
/// assert_eq!(extract_between::card::TOOL_VERSION, "1.0.0");
/// ```
pub const TOOL_VERSION: &str = "1.0.0";

/// The card's `execute_url`.
///
/// ```
/// assert!(extract_between::card::EXECUTE_URL.ends_with("/execute"));
/// ```
pub const EXECUTE_URL: &str = "/v1/tools/text-extract-between/versions/1.0.0/execute";

/// Largest `text`, in UTF-8 bytes (`limits.max_text_bytes`, "250 KiB").
///
/// ```
/// assert_eq!(extract_between::card::MAX_TEXT_BYTES, 250 * 1024);
/// ```
pub const MAX_TEXT_BYTES: usize = 256_000;

/// Largest `start` or `end` marker, in UTF-8 bytes (`limits.max_marker_bytes`).
///
/// ```
/// assert_eq!(extract_between::card::MAX_MARKER_BYTES, 4096);
/// ```
pub const MAX_MARKER_BYTES: usize = 4096;

/// `max_matches` when the request leaves it out (`limits.default_max_matches`).
///
/// ```
/// assert_eq!(extract_between::card::DEFAULT_MAX_MATCHES, 100);
/// ```
pub const DEFAULT_MAX_MATCHES: usize = 100;

/// Largest `max_matches` a request may ask for (`limits.max_matches`); the smallest is 1.
///
/// ```
/// assert_eq!(extract_between::card::MAX_MATCHES, 1000);
/// ```
pub const MAX_MATCHES: usize = 1000;
