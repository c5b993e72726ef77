//! The server's fixed answers, as the official SDK's result types serialized once: who the
//! server is, `initialize`, `server/discover`, `tools/list` in both eras, and the fields a
//! 2026-07-28 `tools/call` result ends with.

use super::tool::tool_definition;
use rmcp::model::{
    CacheScope, DiscoverResult, Implementation, InitializeResult, ListToolsResult, MetaObject,
    ProtocolVersion, ResultType, ServerCapabilities, ToolsCapability,
};
use std::sync::LazyLock;

/// The protocol versions served per request (`_meta`), newest first.
///
/// ```
/// use extract_between_cli::mcp::MODERN_VERSIONS;
/// assert!(MODERN_VERSIONS.iter().all(|v| !v.has_initialize()));
/// ```
pub const MODERN_VERSIONS: &[ProtocolVersion] = &[ProtocolVersion::V_2026_07_28];
/// The protocol versions `initialize` can negotiate, newest first.
///
/// ```
/// use extract_between_cli::mcp::LEGACY_VERSIONS;
/// assert_eq!(LEGACY_VERSIONS[0].as_str(), "2025-11-25");
/// assert!(LEGACY_VERSIONS.iter().all(|v| v.has_initialize()));
/// ```
pub const LEGACY_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2024_11_05,
];

/// How long a client may cache the tool list and the discovery result.
const CACHE_TTL_MS: u64 = 3_600_000;
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
const INSTRUCTIONS: &str = "One tool, text-extract-between: the exact substrings of `text` \
     between a literal `start` and `end` marker, left to right, non-overlapping, at most \
     `max_matches` (default 100) with `truncated` telling whether more exist; offsets count \
     UTF-16 code units.";

/// Every version served, modern first.
pub(crate) fn supported_versions() -> Vec<ProtocolVersion> {
    MODERN_VERSIONS
        .iter()
        .chain(LEGACY_VERSIONS)
        .cloned()
        .collect()
}

fn server_info() -> Implementation {
    let mut info = Implementation::new("extract-between", env!("CARGO_PKG_VERSION"));
    info.title = Some("extract-between".to_owned());
    info
}

/// The `_meta` every 2026-07-28 result carries: the server's identity.
fn modern_meta() -> MetaObject {
    let info = serde_json::to_value(server_info()).expect("an Implementation serializes");
    let mut meta = MetaObject::new();
    meta.0.insert(META_SERVER_INFO.to_owned(), info);
    meta
}

/// One tool, whose list never changes.
fn capabilities() -> ServerCapabilities {
    let mut tools = ToolsCapability::default();
    tools.list_changed = Some(false);
    let mut capabilities = ServerCapabilities::default();
    capabilities.tools = Some(tools);
    capabilities
}

fn text(result: &impl serde::Serialize) -> String {
    serde_json::to_string(result).expect("the SDK's result types serialize")
}

/// The `initialize` result for a negotiated legacy version.
pub(crate) fn initialize(version: &ProtocolVersion) -> String {
    let capabilities = capabilities();
    let result = InitializeResult::new(capabilities)
        .with_protocol_version(version.clone())
        .with_server_info(server_info())
        .with_instructions(INSTRUCTIONS);
    text(&result)
}

/// The `server/discover` result (2026-07-28).
pub(crate) static DISCOVER: LazyLock<String> = LazyLock::new(|| {
    let capabilities = capabilities();
    let mut result = DiscoverResult::new(supported_versions(), capabilities);
    result.instructions = Some(INSTRUCTIONS.to_owned());
    result.ttl_ms = CACHE_TTL_MS;
    result.cache_scope = CacheScope::Public;
    result.meta = Some(modern_meta());
    text(&result)
});

/// The `tools/list` result of 2026-07-28: cacheable, with the server's identity.
pub(crate) static MODERN_TOOLS: LazyLock<String> = LazyLock::new(|| {
    let mut result = ListToolsResult::with_all_items(vec![tool_definition().clone()])
        .with_ttl_ms(CACHE_TTL_MS)
        .with_cache_scope(CacheScope::Public);
    result.meta = Some(modern_meta());
    text(&result)
});

/// The `tools/list` result of the eras with `initialize` (no `resultType`: not in them).
pub(crate) static LEGACY_TOOLS: LazyLock<String> = LazyLock::new(|| {
    let mut result = ListToolsResult::with_all_items(vec![tool_definition().clone()]);
    result.result_type = None;
    text(&result)
});

/// The protocol era a result is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// 2025-11-25 and earlier: the SDK's result fields alone.
    Legacy,
    /// 2026-07-28: every result also carries its `resultType` and the server's identity.
    Modern,
}

impl Era {
    /// What closes a result object after the SDK's fields: the era's own, then the brace.
    pub(crate) fn result_tail(self) -> &'static str {
        match self {
            Era::Legacy => "}",
            Era::Modern => &MODERN_CALL_TAIL,
        }
    }
}

/// What closes a 2026-07-28 `tools/call` result after the SDK's `CallToolResult` fields: the
/// era's fields and the closing brace.
static MODERN_CALL_TAIL: LazyLock<String> = LazyLock::new(|| {
    format!(
        ",\"resultType\":{},\"_meta\":{}}}",
        text(&ResultType::COMPLETE),
        text(&modern_meta())
    )
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn modern_results_carry_their_type_caching_and_identity() {
        for result in [&*DISCOVER, &*MODERN_TOOLS] {
            let v: Value = serde_json::from_str(result).unwrap();
            assert_eq!(v["resultType"], "complete", "{result}");
            assert_eq!(v["ttlMs"], CACHE_TTL_MS, "{result}");
            assert_eq!(v["cacheScope"], "public", "{result}");
            assert_eq!(v["_meta"][META_SERVER_INFO]["name"], "extract-between");
        }
        let legacy: Value = serde_json::from_str(&LEGACY_TOOLS).unwrap();
        assert!(legacy.get("resultType").is_none());
        assert_eq!(legacy["tools"][0]["name"], "text-extract-between");
    }

    #[test]
    fn initialize_names_the_negotiated_version() {
        let v: Value = serde_json::from_str(&initialize(&LEGACY_VERSIONS[1])).unwrap();
        assert_eq!(v["protocolVersion"], "2025-06-18");
        assert!(v["capabilities"]["tools"].is_object());
        assert_eq!(v["serverInfo"]["name"], "extract-between");
    }
}
