/**
 * Claude through `@anthropic-ai/sdk` (the Messages API): tool use for structured results and the
 * agent's loop, image blocks for vision. Used when `ANTHROPIC_API_KEY` is set (CONTRACT.md);
 * `ANTHROPIC_BASE_URL` points it at any Messages-API-compatible server (tests run one locally).
 * The model name is chosen per task (`ANTHROPIC_MODEL`, `ANTHROPIC_SUMMARY_MODEL`).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages/messages";
import {
  type ContentBlock,
  type Model,
  ModelError,
  type ModelRequest,
  type ModelResponse,
} from "./model.ts";

export interface AnthropicOptions {
  apiKey: string;
  /** A Messages-API-compatible server; the SDK's default (Anthropic) when unset. */
  baseUrl?: string;
  /** The model of every task not named in `taskModels`. */
  model: string;
  /** Model names by task (`content.summarize` → a smaller, faster model). */
  taskModels?: Readonly<Record<string, string>>;
  /** Per request; the SDK retries timeouts and 429/5xx itself `maxRetries` times. */
  timeoutMs?: number;
  maxRetries?: number;
}

/** HTTP statuses worth another try later (rate limit, overload, server trouble). */
function retryableStatus(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 409 || status === 429 ||
    status >= 500;
}

function toParam(block: ContentBlock): ContentBlockParam {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return {
        type: "image",
        source: { type: "base64", media_type: block.mediaType, data: block.data },
      };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: block.input };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: block.toolUseId,
        content: block.content,
        ...(block.isError ? { is_error: true } : {}),
      };
  }
}

/** The Messages API request of a `ModelRequest` (exported for the unit test). */
export function toMessagesRequest(
  request: ModelRequest,
  model: string,
): MessageCreateParamsNonStreaming {
  const messages: MessageParam[] = request.messages.map((m) => ({
    role: m.role,
    content: m.content.map(toParam),
  }));
  const tools: Tool[] | undefined = request.tools?.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema as Tool["input_schema"],
  }));
  const choice = request.toolChoice;
  return {
    model,
    max_tokens: request.maxTokens,
    messages,
    ...(request.system ? { system: request.system } : {}),
    ...(tools?.length ? { tools } : {}),
    ...(tools?.length && choice
      ? {
        tool_choice: choice === "auto"
          ? { type: "auto" as const }
          : { type: "tool" as const, name: choice.name },
      }
      : {}),
  };
}

const STOP_REASONS = new Set(["end_turn", "tool_use", "max_tokens", "stop_sequence"]);

/** A Messages API response as a `ModelResponse`; blocks the service does not use are dropped. */
export function fromMessage(message: Anthropic.Message): ModelResponse {
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text") content.push({ type: "text", text: block.text });
    if (block.type === "tool_use") {
      content.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
    }
  }
  const stop = message.stop_reason ?? "end_turn";
  return {
    content,
    // `pause_turn`, `refusal`, context exhaustion: the turn is over, nothing more will come.
    stopReason: (STOP_REASONS.has(stop) ? stop : "end_turn") as ModelResponse["stopReason"],
    usage: {
      inputTokens: message.usage?.input_tokens ?? 0,
      outputTokens: message.usage?.output_tokens ?? 0,
    },
    model: message.model,
  };
}

/** Claude models through the official SDK. */
export class AnthropicModel implements Model {
  readonly name: string;
  #client?: Promise<{ client: Anthropic; sdk: typeof import("@anthropic-ai/sdk") }>;

  constructor(private readonly options: AnthropicOptions) {
    this.name = options.model;
  }

  /**
   * The SDK loads on the first call (issue 26: ~12 MB resident in every process that imported it,
   * with or without a key).
   */
  #sdk() {
    const options = this.options;
    return this.#client ??= import("@anthropic-ai/sdk").then((sdk) => ({
      sdk,
      client: new sdk.default({
        // Passed explicitly: the SDK would otherwise look at the environment and profile files,
        // and configuration is read once, in src/config.ts.
        apiKey: options.apiKey,
        baseURL: options.baseUrl ?? "https://api.anthropic.com",
        timeout: options.timeoutMs ?? 120_000,
        maxRetries: options.maxRetries ?? 2,
      }),
    }));
  }

  /** The model name a task runs on. */
  modelFor(task: string): string {
    return this.options.taskModels?.[task] ?? this.options.model;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const { client, sdk } = await this.#sdk();
    const { APIConnectionError, APIError } = sdk;
    try {
      const message = await client.messages.create(
        toMessagesRequest(request, this.modelFor(request.task)),
      );
      return fromMessage(message);
    } catch (error) {
      if (error instanceof APIConnectionError) {
        throw new ModelError(`Model service unreachable: ${error.message}`, true, {
          cause: error,
        });
      }
      if (error instanceof APIError) {
        const detail = error.apiMessage ?? error.message;
        throw new ModelError(
          `Model service answered ${error.status ?? "an error"}: ${detail}`,
          retryableStatus(error.status),
          { cause: error },
        );
      }
      throw new ModelError(
        `Model call failed: ${error instanceof Error ? error.message : String(error)}`,
        true,
        { cause: error },
      );
    }
  }
}
