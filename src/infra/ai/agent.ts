/**
 * The agent loop, the same code for Claude and the offline model: the model is called with the
 * conversation and the tools; each tool call it makes runs and its result (or error) goes back as
 * a `tool_result`; the loop ends when the model stops calling tools, at the step limit or when
 * the token budget is spent. Every tool call is recorded as it happens. A tool that refuses its
 * input answers the model with a tool error, so the model can correct itself; nothing a model
 * sends can throw out of the loop. Only the model's own failure (`ModelError`) does.
 */
import type { ContentBlock, Model, ModelMessage, ToolSpec } from "./model.ts";

/** A failure whose message is meant for the model (bad input, a refused action). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** One tool the agent may call. `run` validates its own input. */
export interface AgentTool {
  spec: ToolSpec;
  run(input: unknown): Promise<unknown>;
}

/** One recorded tool call (CONTRACT.md run steps: `{tool, input, output|error}`). */
export type AgentStep =
  | { tool: string; input: unknown; output: unknown }
  | { tool: string; input: unknown; error: string };

export interface AgentOptions {
  model: Model;
  /** The task name the offline model dispatches on. */
  task: string;
  system: string;
  messages: ModelMessage[];
  tools: AgentTool[];
  /** Model calls at most; a model that keeps calling tools is stopped here. */
  maxSteps: number;
  /** Input plus output tokens at most, over all model calls. */
  tokenBudget: number;
  /** `max_tokens` of each model call. */
  maxTokensPerCall: number;
  /** Called after every tool call, before the next one runs (the run records it). */
  onStep?: (step: AgentStep) => Promise<void>;
  /** Which error messages are shown to the model as they are (others become a generic one). */
  isExpected?: (error: unknown) => boolean;
  /** Where unexpected tool failures are reported. */
  onUnexpected?: (tool: string, error: unknown) => void;
}

export interface AgentResult {
  /** `finished`: the model ended its turn; the others: the loop stopped it. */
  outcome: "finished" | "step_limit" | "token_budget";
  /** The model's last text, if any. */
  text: string;
  steps: number;
  usage: { inputTokens: number; outputTokens: number };
  /** The model that answered last. */
  model: string;
}

/** Longest tool result handed back to the model. */
const MAX_RESULT_CHARS = 30_000;

function serialise(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return text.length > MAX_RESULT_CHARS
    ? `${text.slice(0, MAX_RESULT_CHARS)}… (cut at ${MAX_RESULT_CHARS} characters)`
    : text;
}

/** Runs the loop until the model is done or a limit stops it. Rejects only with the model's error. */
export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const messages = [...options.messages];
  const tools = new Map(options.tools.map((t) => [t.spec.name, t]));
  const usage = { inputTokens: 0, outputTokens: 0 };
  let model = options.model.name;
  let text = "";
  for (let step = 1; step <= options.maxSteps; step++) {
    const response = await options.model.complete({
      task: options.task,
      system: options.system,
      messages,
      tools: options.tools.map((t) => t.spec),
      toolChoice: "auto",
      maxTokens: options.maxTokensPerCall,
    });
    model = response.model;
    usage.inputTokens += response.usage.inputTokens;
    usage.outputTokens += response.usage.outputTokens;
    const said = response.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
    if (said) text = said;
    const calls = response.content.filter((b) => b.type === "tool_use");
    messages.push({ role: "assistant", content: response.content });
    if (calls.length === 0) return { outcome: "finished", text, steps: step, usage, model };
    const results: ContentBlock[] = [];
    for (const call of calls) {
      const result = await runTool(tools.get(call.name), call, options);
      results.push(result);
    }
    messages.push({ role: "user", content: results });
    if (usage.inputTokens + usage.outputTokens >= options.tokenBudget) {
      return { outcome: "token_budget", text, steps: step, usage, model };
    }
  }
  return { outcome: "step_limit", text, steps: options.maxSteps, usage, model };
}

async function runTool(
  tool: AgentTool | undefined,
  call: Extract<ContentBlock, { type: "tool_use" }>,
  options: AgentOptions,
): Promise<ContentBlock> {
  let step: AgentStep;
  if (!tool) {
    step = { tool: call.name, input: call.input, error: `Unknown tool ${call.name}` };
  } else {
    try {
      step = { tool: call.name, input: call.input, output: await tool.run(call.input) };
    } catch (error) {
      const expected = error instanceof ToolError || options.isExpected?.(error);
      if (!expected) options.onUnexpected?.(call.name, error);
      const message = expected && error instanceof Error
        ? error.message
        : "The tool failed unexpectedly; try again later";
      step = { tool: call.name, input: call.input, error: message };
    }
  }
  await options.onStep?.(step);
  return "error" in step
    ? { type: "tool_result", toolUseId: call.id, content: step.error, isError: true }
    : { type: "tool_result", toolUseId: call.id, content: serialise(step.output) };
}
