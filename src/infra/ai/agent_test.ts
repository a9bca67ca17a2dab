import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { type AgentStep, type AgentTool, runAgent, ToolError } from "./agent.ts";
import { type Model, ModelError, type ModelRequest, type ModelResponse } from "./model.ts";

/** A model answering from a script; it records every request. */
function scripted(answers: Array<(request: ModelRequest) => ModelResponse>): Model & {
  requests: ModelRequest[];
} {
  const requests: ModelRequest[] = [];
  return {
    name: "scripted",
    requests,
    complete(request) {
      requests.push(structuredClone(request));
      const answer = answers[Math.min(requests.length, answers.length) - 1];
      return Promise.resolve(answer(request));
    },
  };
}

const reply = (content: ModelResponse["content"], tokens = 10): ModelResponse => ({
  content,
  stopReason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
  usage: { inputTokens: tokens, outputTokens: tokens },
  model: "scripted-1",
});
const call = (name: string, input: unknown, id = name) =>
  ({ type: "tool_use", id, name, input }) as const;

const echo: AgentTool = {
  spec: { name: "echo", description: "", inputSchema: { type: "object" } },
  run(input) {
    const text = (input as { text?: unknown })?.text;
    if (typeof text !== "string") throw new ToolError("Invalid input: text: must be a string");
    return Promise.resolve({ echoed: text });
  },
};
const broken: AgentTool = {
  spec: { name: "broken", description: "", inputSchema: { type: "object" } },
  run: () => Promise.reject(new Error("connection reset by database at 10.0.0.5")),
};

function options(model: Model, steps: AgentStep[], extra = {}) {
  return {
    model,
    task: "test.agent",
    system: "system",
    messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }],
    tools: [echo, broken],
    maxSteps: 5,
    tokenBudget: 10_000,
    maxTokensPerCall: 100,
    onStep: (step: AgentStep) => {
      steps.push(step);
      return Promise.resolve();
    },
    ...extra,
  };
}

Deno.test("agent: a bad input is a tool error the model sees, then corrects", async () => {
  const model = scripted([
    () => reply([call("echo", { text: 5 }, "a")]),
    () => reply([call("echo", { text: "hi" }, "b")]),
    () => reply([{ type: "text", text: "done" }]),
  ]);
  const steps: AgentStep[] = [];
  const result = await runAgent(options(model, steps));
  assertEquals([result.outcome, result.text, result.steps], ["finished", "done", 3]);
  assertEquals(result.usage, { inputTokens: 30, outputTokens: 30 });
  assertEquals(steps, [
    { tool: "echo", input: { text: 5 }, error: "Invalid input: text: must be a string" },
    { tool: "echo", input: { text: "hi" }, output: { echoed: "hi" } },
  ]);
  const [refusal] = model.requests[1].messages.at(-1)!.content;
  assertEquals(refusal, {
    type: "tool_result",
    toolUseId: "a",
    content: "Invalid input: text: must be a string",
    isError: true,
  });
  const [ok] = model.requests[2].messages.at(-1)!.content;
  assertEquals(ok, { type: "tool_result", toolUseId: "b", content: '{"echoed":"hi"}' });
});

Deno.test("agent: unknown tools and unexpected failures never throw; details stay inside", async () => {
  const unexpected: unknown[] = [];
  const model = scripted([
    () => reply([call("nope", {}, "a"), call("broken", {}, "b")]),
    () => reply([{ type: "text", text: "ok" }]),
  ]);
  const steps: AgentStep[] = [];
  const result = await runAgent(
    options(model, steps, { onUnexpected: (_: string, e: unknown) => unexpected.push(e) }),
  );
  assertEquals(result.outcome, "finished");
  assertEquals(steps.map((s) => "error" in s ? s.error : ""), [
    "Unknown tool nope",
    "The tool failed unexpectedly; try again later",
  ]);
  assertEquals(unexpected.length, 1);
  assert.ok(!JSON.stringify(model.requests[1]).includes("10.0.0.5"));
});

Deno.test("agent: the step limit and the token budget stop the loop", async () => {
  const forever = scripted([() => reply([call("echo", { text: "again" })])]);
  const limited = await runAgent(options(forever, []));
  assertEquals([limited.outcome, limited.steps, forever.requests.length], ["step_limit", 5, 5]);
  const greedy = scripted([() => reply([call("echo", { text: "x" })], 3000)]);
  const budget = await runAgent(options(greedy, []));
  assertEquals([budget.outcome, greedy.requests.length], ["token_budget", 2]);
});

Deno.test("agent: a model error rejects the run with it", async () => {
  const failing: Model = {
    name: "failing",
    complete: () => Promise.reject(new ModelError("Model service answered 529: overloaded", true)),
  };
  const error = await runAgent(options(failing, [])).catch((e) => e);
  assert.ok(error instanceof ModelError);
  assertEquals(error.retryable, true);
});
