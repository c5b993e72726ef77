//! The shipped card, parsed once, for the documents built from it (the HTTP service's tool
//! list and OpenAPI document, MCP's tool definition).

use extract_between::card::CARD_JSON;
use serde_json::Value;
use std::sync::LazyLock;

/// The card as JSON; the library's tests hold it valid.
pub(crate) static CARD: LazyLock<Value> =
    LazyLock::new(|| serde_json::from_str(CARD_JSON).expect("the shipped card is JSON"));
