/**
 * The AI model as the service sees it: one request/response shape for every use (summaries,
 * image descriptions, the analyze agent's tool loop, Scene generation), spoken by two
 * implementations: Claude through `@anthropic-ai/sdk` (the Messages API) and the offline model
 * (deterministic, no network) used when `ANTHROPIC_API_KEY` is unset.
 *
 * Structured results come back as tool calls: a caller that wants a JSON object offers one tool
 * whose input schema is that object and sets `toolChoice` to it.
 */

/** A block of a message, as in the Messages API. */
export type ContentBlock =
  | { type: "text"; text: string }
  | {
    type: "image";
    mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
    data: string;
  }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; toolUseId: string; content: string; isError?: boolean };

export interface ModelMessage {
  role: "user" | "assistant";
  content: ContentBlock[];
}

/** A tool the model may call; `inputSchema` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  /**
   * What the request is for, e.g. `content.summarize`, `content.agent`, `targetless.scene`. The
   * offline model dispatches on it; Claude ignores it (it picks the model name per task).
   */
  task: string;
  system?: string;
  messages: ModelMessage[];
  tools?: ToolSpec[];
  /** `auto` (default), or the name of the one tool the model must call. */
  toolChoice?: "auto" | { name: string };
  maxTokens: number;
}

export interface ModelResponse {
  content: ContentBlock[];
  stopReason: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";
  usage: { inputTokens: number; outputTokens: number };
  /** The model that answered (recorded on analyze runs). */
  model: string;
}

/** A model; `complete` rejects with `ModelError` when the provider fails. */
export interface Model {
  /** `offline` or the default Claude model name. */
  readonly name: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/** The provider failed (network, 4xx/5xx, overload); `retryable` says whether a retry may help. */
export class ModelError extends Error {
  constructor(message: string, readonly retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ModelError";
  }
}

/**
 * The offline behaviour of one task: deterministic, no network. Each domain supplies the
 * behaviours of its own tasks when the offline model is built (`src/build_services.ts`).
 */
export type OfflineTask = (request: ModelRequest) => ModelResponse | Promise<ModelResponse>;
