//! The OpenAPI 3.1 document of the service, built from the card's schemas.

use super::TOOL_PATH;
use super::routes::CARD;

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
                    "501": err("unsupported_transfer_coding"),
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
                    "501": err("unsupported_transfer_coding"),
                    "503": err("overloaded")
                }
            }},
            TOOL_PATH: {"get": {"operationId": "card", "responses": {"200": json_ok("The tool card", serde_json::json!({"type": "object"}))}}},
            "/v1/tools": {"get": {"operationId": "tools", "responses": {"200": json_ok("The tools", serde_json::json!({"type": "object"}))}}},
            "/healthz": {"get": {"operationId": "healthz", "responses": {"200": json_ok("The process runs (alias of /livez)", serde_json::json!({"type": "object"}))}}},
            "/livez": {"get": {"operationId": "livez", "responses": {"200": json_ok("The process runs", serde_json::json!({"type": "object"}))}}},
            "/readyz": {"get": {"operationId": "readyz", "responses": {
                "200": json_ok("Taking traffic", serde_json::json!({"type": "object"})),
                "503": err("shutting_down")
            }}},
            "/openapi.json": {"get": {"operationId": "openapi", "responses": {"200": json_ok("This document", serde_json::json!({"type": "object"}))}}}
        },
        "components": {"schemas": {
            "Input": card["input_schema"],
            "Output": card["output_schema"],
            "Error": error
        }}
    })
}
