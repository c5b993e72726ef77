//! The service's route templates, in one place for the router, the metrics' labels, the
//! token check's exemptions and the OpenAPI document.

macro_rules! tool_path {
    () => {
        "/v1/tools/text-extract-between/versions/1.0.0"
    };
}

/// The card of the one tool.
pub(super) const TOOL_PATH: &str = tool_path!();
/// The card's execute URL.
pub(super) const EXECUTE_PATH: &str = concat!(tool_path!(), "/execute");
/// Uploads of any size, answered as NDJSON.
pub(super) const STREAM_PATH: &str = concat!(tool_path!(), "/stream");
/// The list of tools.
pub(super) const TOOLS_PATH: &str = "/v1/tools";
/// The OpenAPI document.
pub(super) const OPENAPI_PATH: &str = "/openapi.json";
/// Prometheus' scrape target.
pub(super) const METRICS_PATH: &str = "/metrics";
/// MCP's Streamable HTTP endpoint.
pub(super) const MCP_PATH: &str = "/mcp";
/// The liveness probe and its alias.
pub(super) const LIVEZ: &str = "/livez";
/// The alias of [`LIVEZ`] that older checks use.
pub(super) const HEALTHZ: &str = "/healthz";
/// The readiness probe: 503 from the moment shutdown begins.
pub(super) const READYZ: &str = "/readyz";

/// The probes: no token needed, no slot taken.
pub(super) const PROBES: [&str; 3] = [LIVEZ, HEALTHZ, READYZ];

/// Every route template, as the metrics label them.
pub(super) const ROUTES: [&str; 10] = [
    EXECUTE_PATH,
    STREAM_PATH,
    TOOL_PATH,
    TOOLS_PATH,
    OPENAPI_PATH,
    METRICS_PATH,
    MCP_PATH,
    LIVEZ,
    HEALTHZ,
    READYZ,
];

/// The playground page's route; its files are under it.
pub(super) const PLAYGROUND: &str = "/playground";
