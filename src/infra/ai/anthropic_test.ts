import { assertEquals } from "../../../tests/helpers/assert.ts";
import { fromMessage, toMessagesRequest } from "./anthropic.ts";

Deno.test("anthropic: requests map blocks, tools and the forced tool to the Messages API", () => {
  const body = toMessagesRequest({
    task: "content.summarize",
    system: "sys",
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "hi" },
          { type: "image", mediaType: "image/jpeg", data: "AAAA" },
        ],
      },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x", input: { a: 1 } }] },
      {
        role: "user",
        content: [{ type: "tool_result", toolUseId: "t1", content: "bad", isError: true }],
      },
    ],
    tools: [{ name: "x", description: "d", inputSchema: { type: "object" } }],
    toolChoice: { name: "x" },
    maxTokens: 50,
  }, "claude-haiku-4-5");
  assertEquals(body, {
    model: "claude-haiku-4-5",
    max_tokens: 50,
    system: "sys",
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "hi" },
          { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "AAAA" } },
        ],
      },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x", input: { a: 1 } }] },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: "bad", is_error: true }],
      },
    ],
    tools: [{ name: "x", description: "d", input_schema: { type: "object" } }],
    tool_choice: { type: "tool", name: "x" },
  });
});

Deno.test("anthropic: responses keep text and tool calls; unknown stop reasons end the turn", () => {
  const response = fromMessage({
    id: "m",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-6",
    content: [
      { type: "text", text: "Thinking", citations: null },
      { type: "tool_use", id: "t", name: "list_notes", input: {}, caller: { type: "direct" } },
    ],
    stop_reason: "refusal",
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 4 },
  } as never);
  assertEquals(response, {
    content: [
      { type: "text", text: "Thinking" },
      { type: "tool_use", id: "t", name: "list_notes", input: {} },
    ],
    stopReason: "end_turn",
    usage: { inputTokens: 3, outputTokens: 4 },
    model: "claude-sonnet-4-6",
  });
});
