//! The card's tool on the official Rust MCP SDK's Streamable HTTP server (rmcp), as a user
//! of the SDK would write it: a `ServerHandler` whose `call_tool` runs the card's JSON
//! contract, served statelessly with JSON answers. `benches/load.py` drives it beside the
//! service's own `/mcp` to measure what the SDK's server runtime costs per request.
//!
//! Prints `listening on http://ADDR` and serves `/mcp` until killed.

use extract_between::card::TOOL_ID;
use extract_between::request::{self, Outcome};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use std::sync::Arc;

#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Clone)]
struct ExtractBetween;

impl ServerHandler for ExtractBetween {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().build();
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            "rmcp-baseline",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // The very definition the service gives.
        let tool = extract_between_cli::mcp::tool_definition().clone();
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != TOOL_ID {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let body = serde_json::to_vec(&arguments).expect("a Value serializes");
        let reply = request::execute(&body);
        let text = ContentBlock::text(reply.body.clone());
        let result = match reply.outcome {
            Outcome::Output => {
                let structured = serde_json::from_str(&reply.body).expect("the contract's JSON");
                let mut result = CallToolResult::success(vec![text]);
                result.structured_content = Some(structured);
                result
            }
            Outcome::InvalidInput | Outcome::Unclosed => CallToolResult::error(vec![text]),
        };
        Ok(result.into())
    }
}

#[tokio::main]
async fn main() {
    let config = StreamableHttpServerConfig::default()
        .with_json_response(true)
        .with_legacy_session_mode(false)
        .with_max_request_body_bytes(4 << 20)
        .disable_allowed_hosts();
    let service = StreamableHttpService::new(
        || Ok(ExtractBetween),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    println!("listening on http://{}", listener.local_addr().unwrap());
    axum::serve(listener, app).await.unwrap();
}
