// deno-lint-ignore-file no-explicit-any -- request bodies are untyped Messages API JSON
/**
 * A local server speaking the part of the Messages API the service calls through the real
 * `@anthropic-ai/sdk` (`POST /v1/messages`, tool_use / tool_result blocks), scripted per test:
 * `respond` answers each request. It accepts the key as `x-api-key` or `Authorization: Bearer`
 * (STACK.md: the SDK may send either) and refuses anything else with 401.
 */

export interface FakeRequest {
  body: any;
  apiKey: string | null;
  bearer: string | null;
}

/** An answer: a Messages API message, or an HTTP error. */
export type FakeReply = { message: any } | { status: number; type: string; error: string };

export interface FakeAnthropic {
  url: string;
  key: string;
  requests: FakeRequest[];
  /** Answers one request; `n` counts the requests of the same kind (summary, agent) from 1. */
  respond: (request: FakeRequest, n: number) => FakeReply | Promise<FakeReply>;
  /** Clears the recorded requests and the counters before a test installs its script. */
  reset(): void;
  close(): Promise<void>;
}

let ids = 0;

/** A message whose content is the given blocks. */
export function message(content: any[], options: { model?: string } = {}): FakeReply {
  const toolUse = content.some((b) => b.type === "tool_use");
  return {
    message: {
      id: `msg_${++ids}`,
      type: "message",
      role: "assistant",
      model: options.model ?? "claude-sonnet-4-6",
      content,
      stop_reason: toolUse ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 20 },
    },
  };
}

/** A tool_use block. */
export function toolUse(name: string, input: unknown): any {
  return { type: "tool_use", id: `toolu_${++ids}`, name, input };
}

/** The tool_result blocks of the request's last user message. */
export function lastResults(body: any): any[] {
  const last = body.messages.at(-1);
  return Array.isArray(last?.content)
    ? last.content.filter((b: any) => b.type === "tool_result")
    : [];
}

/** Whether a request is the summary stage's (it forces `record_summary`). */
export function isSummary(body: any): boolean {
  return body.tool_choice?.type === "tool" && body.tool_choice?.name === "record_summary";
}

/** Starts the fake on an ephemeral port. */
export function startFakeAnthropic(key = "sk-ant-test-key"): FakeAnthropic {
  const counts = { summary: 0, agent: 0 };
  const fake: FakeAnthropic = {
    url: "",
    key,
    requests: [],
    respond: () => ({ status: 500, type: "api_error", error: "No script for this test" }),
    reset() {
      counts.summary = 0;
      counts.agent = 0;
      fake.requests.length = 0;
    },
    close: async () => {},
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (req.method !== "POST" || url.pathname !== "/v1/messages") {
      return Response.json({ type: "error", error: { type: "not_found_error", message: "No" } }, {
        status: 404,
      });
    }
    const apiKey = req.headers.get("x-api-key");
    const bearer = req.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ?? null;
    if (apiKey !== key && bearer !== key) {
      return Response.json({
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      }, { status: 401 });
    }
    const request = { body: await req.json(), apiKey, bearer };
    fake.requests.push(request);
    const kind = isSummary(request.body) ? "summary" : "agent";
    const reply = await fake.respond(request, ++counts[kind]);
    if ("message" in reply) return Response.json(reply.message);
    return Response.json({ type: "error", error: { type: reply.type, message: reply.error } }, {
      status: reply.status,
      headers: { "x-should-retry": "false" },
    });
  });
  fake.url = `http://127.0.0.1:${server.addr.port}`;
  fake.close = () => server.shutdown();
  return fake;
}
