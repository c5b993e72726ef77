//! The card's tool for MCP: its definition as the official SDK's [`Tool`], and a call through
//! the card's JSON contract.

use extract_between::__private::push_json_string;
use extract_between::card::TOOL_ID;
use extract_between::request::{self, Outcome};
use rmcp::model::{ErrorData, JsonObject, Tool, ToolAnnotations};
use serde_json::value::RawValue;
use std::sync::{Arc, LazyLock};

const TITLE: &str = "Extract text between markers";

static TOOL: LazyLock<Tool> = LazyLock::new(|| {
    let card = &*crate::tool_card::CARD;
    let schema = |name: &str| -> Arc<JsonObject> {
        let schema = card[name].as_object().cloned();
        Arc::new(schema.expect("the shipped card's schemas are objects"))
    };
    let description = card["description"].as_str().unwrap_or_default().to_owned();
    let annotations = ToolAnnotations::from_raw(
        Some(TITLE.to_owned()),
        Some(true),
        Some(false),
        Some(true),
        Some(false),
    );
    Tool::new(TOOL_ID, description, schema("input_schema"))
        .with_title(TITLE)
        .with_raw_output_schema(schema("output_schema"))
        .with_annotations(annotations)
});

/// The tool `tools/list` gives: the card's name, description and schemas, read-only and
/// idempotent.
///
/// ```
/// let tool = extract_between_cli::mcp::tool_definition();
/// assert_eq!(tool.name, "text-extract-between");
/// assert_eq!(tool.annotations.as_ref().unwrap().read_only_hint, Some(true));
/// assert!(tool.input_schema["required"].as_array().unwrap().len() >= 3);
/// ```
pub fn tool_definition() -> &'static Tool {
    &TOOL
}

/// `tools/call`: the arguments go through the card's JSON contract as the client wrote them
/// (a lone surrogate in a text gets the contract's `invalid_input`, as on the execute URL),
/// so the text block is byte for byte what the execute URL and tool mode answer. The answer
/// is a `CallToolResult` written as text: it holds the contract's JSON twice (structured and
/// as an escaped string), which for a 256000-byte text is better not built as a `Value`.
/// `tail` closes the object: `}`, or the fields an era adds before it (`results::Era`).
pub(crate) fn call(
    name: Option<&str>,
    arguments: Option<&RawValue>,
    tail: &str,
) -> Result<String, ErrorData> {
    match name {
        Some(TOOL_ID) => {}
        Some(other) => {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {other} (this server has {TOOL_ID})"),
                None,
            ));
        }
        None => return Err(ErrorData::invalid_params("params.name is required", None)),
    }
    let arguments = arguments.map_or("{}", RawValue::get);
    let reply = request::execute(arguments.as_bytes());
    let mut out = String::with_capacity(2 * reply.body.len() + 96 + tail.len());
    out.push_str("{\"content\":[{\"type\":\"text\",\"text\":");
    push_json_string(&mut out, &reply.body);
    out.push_str("}],");
    match reply.outcome {
        Outcome::Output => {
            out.push_str("\"structuredContent\":");
            out.push_str(&reply.body);
            out.push_str(",\"isError\":false");
        }
        // The output schema does not describe errors: no structuredContent.
        Outcome::InvalidInput | Outcome::Unclosed => out.push_str("\"isError\":true"),
    }
    out.push_str(tail);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::CallToolResult;

    fn sdk_result(arguments: &str) -> CallToolResult {
        let raw = RawValue::from_string(arguments.to_owned()).unwrap();
        let text = call(Some(TOOL_ID), Some(&raw), "}").unwrap();
        serde_json::from_str(&text).expect("the SDK reads the answer as a CallToolResult")
    }

    fn text_of(result: &CallToolResult) -> &str {
        let block = result.content[0].as_text();
        &block.expect("a text block").text
    }

    #[test]
    fn the_sdk_reads_an_output_as_structured_content_and_text() {
        let result = sdk_result(r#"{"text":"a[1]b[2]","start":"[","end":"]"}"#);
        assert_eq!(result.is_error, Some(false));
        let expected = serde_json::json!({"matches": ["1", "2"], "truncated": false});
        assert_eq!(result.structured_content, Some(expected.clone()));
        let text: serde_json::Value = serde_json::from_str(text_of(&result)).unwrap();
        assert_eq!(text, expected);
    }

    #[test]
    fn a_contract_error_is_a_tool_error_without_structured_content() {
        for args in [
            r#"{"text":"a[1","start":"[","end":"]"}"#,
            r#"{"text":"\ud800","start":"[","end":"]"}"#,
        ] {
            let result = sdk_result(args);
            assert_eq!(result.is_error, Some(true), "{args}");
            assert_eq!(result.structured_content, None, "{args}");
            let envelope: serde_json::Value = serde_json::from_str(text_of(&result)).unwrap();
            assert!(envelope["error"]["code"].is_string(), "{args}");
        }
    }

    #[test]
    fn unknown_or_missing_tool_names_are_invalid_params() {
        let e = call(Some("other"), None, "}").unwrap_err();
        assert_eq!(e.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(e.message.contains("other"));
        let e = call(None, None, "}").unwrap_err();
        assert_eq!(e.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    }
}
