//! The OpenAPI 3.1 document of the service, built from the card's schemas and the running
//! configuration (its `max_match_bytes`, whether it requires a token): every route, every
//! status each can answer, every limit a client can meet.

use super::config::{ServeArgs, ServerConfig};
use super::protocol::{MAX_HEADER_BYTES, MAX_HEADER_FIELDS, MAX_TARGET_BYTES};
use super::urls::{
    EXECUTE_PATH, HEALTHZ, LIVEZ, MCP_PATH, METRICS_PATH, OPENAPI_PATH, READYZ, STREAM_PATH,
    TOOL_PATH, TOOLS_PATH,
};
use crate::tool_card::CARD;
use extract_between::request::MAX_REQUEST_BYTES;
use serde_json::{Value, json};

/// The OpenAPI 3.1 document of the service with its default options; request and response
/// schemas are the card's. `GET /openapi.json` serves the one of the running configuration.
///
/// ```
/// let doc = extract_between_cli::server::openapi_document();
/// assert_eq!(doc["openapi"], "3.1.0");
/// ```
pub fn openapi_document() -> Value {
    document(&ServerConfig::new(ServeArgs::default()), false)
}

/// An answer with the error envelope.
fn err(description: &str) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
}

/// An answer with a JSON-RPC error (the MCP endpoint's refusals).
fn rpc_err(description: &str) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JsonRpcResponse"}}}})
}

fn json_ok(description: &str, schema: Value) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": schema}}})
}

/// The document for a service configured with `config`, with `auth` when it requires tokens.
pub(super) fn document(config: &ServerConfig, auth: bool) -> Value {
    let card = &*CARD;
    let marker = &card["input_schema"]["properties"]["start"];
    // What any route can answer: refused framings, and the token check where it applies.
    let common = |mut responses: Value, guarded: bool| {
        let map = responses.as_object_mut().expect("responses are an object");
        // No content declared: past hyper's own limits (a 64 KiB target or head) the answer
        // comes from hyper, with an empty body; below them it is the error envelope.
        map.entry("400").or_insert_with(|| {
            json!({"description": "duplicate_header: a second Authorization or Host header (the error envelope)"})
        });
        map.insert(
            "414".into(),
            json!({"description": format!("uri_too_long: the target is over {} KiB (the error envelope; over 64 KiB, an empty body)", MAX_TARGET_BYTES / 1024)}),
        );
        map.insert(
            "431".into(),
            json!({"description": format!("headers_too_large: over {MAX_HEADER_FIELDS} header fields or {} KiB of them (the error envelope; a head over 64 KiB, an empty body)", MAX_HEADER_BYTES / 1024)}),
        );
        map.insert(
            "501".into(),
            err("unsupported_transfer_coding: a transfer coding other than chunked"),
        );
        if guarded && auth {
            map.insert(
                "401".into(),
                err("unauthorized: no valid bearer token (see WWW-Authenticate)"),
            );
        }
        responses
    };
    let security = |guarded: bool| {
        if guarded && auth {
            json!([{"bearer": []}])
        } else {
            json!([])
        }
    };
    let get = |id: &str, summary: &str, ok: Value, guarded: bool| {
        json!({"get": {
            "operationId": id,
            "summary": summary,
            "security": security(guarded),
            "responses": common(json!({"200": ok}), guarded)
        }})
    };
    let stream_op = |id: &str| {
        json!({
            "operationId": id,
            "summary": "Stream a raw UTF-8 upload of any size; matches come back as NDJSON while it arrives",
            "security": security(true),
            "parameters": [
                {"name": "start", "in": "query", "required": true, "schema": marker},
                {"name": "end", "in": "query", "required": true, "schema": marker},
                {"name": "max_matches", "in": "query", "required": false,
                 "description": "Matches delivered before the answer ends with truncated: true (default: no cap)",
                 "schema": {"type": "integer", "minimum": 1, "maximum": u64::MAX}},
                {"name": "max_match_bytes", "in": "query", "required": false,
                 "description": "The longest match delivered; a longer one ends the answer with match_too_large",
                 "schema": {"type": "integer", "minimum": 1, "maximum": config.max_match_bytes}}
            ],
            "requestBody": {"required": false, "description": "The text; an empty or absent body is an empty text",
                "content": {"text/plain": {"schema": {"type": "string"}}}},
            "responses": common(json!({
                "200": {"description": "One JSON object per line: matches, then a summary or an error",
                        "content": {"application/x-ndjson": {"schema": {"type": "object"}}}},
                "400": err("invalid_input: a query parameter is missing or invalid (the field names it)"),
                "415": err("unsupported_encoding: a compressed body"),
                "503": err("overloaded: --max-streams uploads are in flight")
            }), true)
        })
    };
    let mut components = json!({"schemas": {
        "Input": card["input_schema"],
        "Output": card["output_schema"],
        "JsonRpcMessage": {
            "type": "object",
            "required": ["jsonrpc", "method"],
            "properties": {
                "jsonrpc": {"const": "2.0"},
                "id": {"type": ["string", "integer"]},
                "method": {"type": "string"},
                "params": {
                    "type": "object",
                    "properties": {
                        "_meta": {"type": "object"},
                        "name": {"type": "string"},
                        "protocolVersion": {"type": "string"},
                        "arguments": {}
                    }
                }
            }
        },
        "JsonRpcResponse": {
            "type": "object",
            "required": ["jsonrpc"],
            "properties": {
                "jsonrpc": {"const": "2.0"},
                "id": {"type": ["string", "integer", "null"]},
                "result": {"type": "object"},
                "error": {"type": "object", "required": ["code", "message"],
                          "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}}
            }
        },
        "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {"error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {"type": "string"},
                    "message": {"type": "string"},
                    "field": {"type": "string", "description": "the request field at fault (invalid_input)"},
                    "offset": {"type": "integer", "description": "where the unclosed start marker begins, in UTF-16 code units"},
                    "byte_offset": {"type": "integer", "description": "the same place (or, on the stream route, the invalid byte) in UTF-8 bytes"}
                }
            }}
        }
    }});
    if auth {
        components["securitySchemes"] = json!({"bearer": {"type": "http", "scheme": "bearer"}});
    }
    let object = json!({"type": "object"});
    json!({
        "openapi": "3.1.0",
        "info": {"title": "extract-between", "version": env!("CARGO_PKG_VERSION"), "description": card["description"]},
        "paths": {
            EXECUTE_PATH: {"post": {
                "operationId": "execute",
                "summary": "The card's execute URL: the card's input in, its output out",
                "security": security(true),
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Input"}}}},
                "responses": common(json!({
                    "200": json_ok("Matches", json!({"$ref": "#/components/schemas/Output"})),
                    "400": err("invalid_input: not the card's input (the field names what)"),
                    "408": err("request_timeout: the body did not arrive within --body-timeout"),
                    "413": err(&format!("payload_too_large: a body over {} MiB", MAX_REQUEST_BYTES >> 20)),
                    "415": err("unsupported_encoding: a compressed body"),
                    "422": err("unclosed_start_marker: a start marker without its end (offset in UTF-16 units)"),
                    "503": err("overloaded: no slot or no room in the memory budget; retry")
                }), true)
            }},
            STREAM_PATH: {"post": stream_op("stream"), "put": stream_op("stream_put")},
            TOOL_PATH: get("card", "The tool card", json_ok("The tool card", object.clone()), true),
            TOOLS_PATH: get("tools", "The tools served", json_ok("The tools", object.clone()), true),
            OPENAPI_PATH: get("openapi", "This document", json_ok("This document", object.clone()), true),
            METRICS_PATH: get("metrics", "Prometheus metrics", json!({"description": "OpenMetrics text",
                "content": {"application/openmetrics-text": {"schema": {"type": "string"}}}}), true),
            MCP_PATH: {
                "post": {
                    "operationId": "mcp",
                    "summary": "MCP Streamable HTTP: one JSON-RPC message a POST (protocol 2026-07-28 with MCP-Protocol-Version, Mcp-Method and Mcp-Name headers; 2025-11-25 and earlier after initialize), or a batch of them in protocol 2025-03-26 (assumed without MCP-Protocol-Version)",
                    "security": security(true),
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"oneOf": [
                        {"$ref": "#/components/schemas/JsonRpcMessage"},
                        {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/JsonRpcMessage"}}
                    ]}}}},
                    "responses": common(json!({
                        "200": {"description": "A JSON-RPC response (a result, or an error such as an unknown tool), or a batch's responses",
                                "content": {"application/json": {"schema": {"oneOf": [
                                    {"$ref": "#/components/schemas/JsonRpcResponse"},
                                    {"type": "array", "items": {"$ref": "#/components/schemas/JsonRpcResponse"}}
                                ]}}}},
                        "202": {"description": "A notification, accepted"},
                        "400": {"description": "Not JSON, not JSON-RPC (or a batch holding such a message, answered message by message), a batch in a version without batches, a header that does not match the body (-32020), an unsupported protocol version (-32022), missing _meta fields (-32602)",
                                "content": {"application/json": {"schema": {"type": ["object", "array"]}}}},
                        "403": {"description": "A foreign Origin (serve --allow-origin adds origins)",
                                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JsonRpcResponse"}}}},
                        "404": {"description": "Method not found (-32601), protocol 2026-07-28",
                                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JsonRpcResponse"}}}},
                        "408": rpc_err("The message did not arrive within --body-timeout"),
                        "413": rpc_err("A message over 4 MiB"),
                        "415": rpc_err("A compressed body"),
                        "503": rpc_err("No slot or no room in the memory budget; retry")
                    }), true)
                }
            },
            LIVEZ: get("livez", "The process runs", json_ok("The process runs", object.clone()), false),
            HEALTHZ: get("healthz", "Alias of /livez", json_ok("The process runs", object.clone()), false),
            READYZ: {"get": {
                "operationId": "readyz",
                "summary": "Whether the service takes traffic",
                "security": [],
                "responses": common(json!({
                    "200": json_ok("Taking traffic", object),
                    "503": err("shutting_down: draining after SIGTERM; take it out of rotation")
                }), false)
            }}
        },
        "components": components
    })
}
