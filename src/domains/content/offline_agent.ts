/**
 * The offline model's analyze agent (CONTRACT.md): deterministic, through the same tools and the
 * same loop as Claude. It reads the conversation so far and takes the next step: list the
 * devices and the new notes; read the notes it will push; push every summarised note not yet
 * pushed to each bound device exactly once, with the template that fits the note's kind and the
 * summary's title and summary; then end its turn.
 */
import type { ContentBlock, ModelRequest, ModelResponse } from "../../infra/ai/model.ts";
import { chooseTemplate, type NoteForPush } from "./offline_variables.ts";

interface Call {
  id: string;
  name: string;
  input: unknown;
  result?: { content: string; isError: boolean };
}

/** Every tool call of the conversation with its result, in order. */
function callsOf(request: ModelRequest): Call[] {
  const calls: Call[] = [];
  const byId = new Map<string, Call>();
  for (const message of request.messages) {
    for (const block of message.content) {
      if (block.type === "tool_use") {
        const call = { id: block.id, name: block.name, input: block.input };
        calls.push(call);
        byId.set(block.id, call);
      }
      if (block.type === "tool_result") {
        const call = byId.get(block.toolUseId);
        if (call) call.result = { content: block.content, isError: block.isError === true };
      }
    }
  }
  return calls;
}

function resultOf<T>(call: Call | undefined): T | undefined {
  if (!call?.result || call.result.isError) return undefined;
  try {
    return JSON.parse(call.result.content) as T;
  } catch {
    return undefined;
  }
}

function respond(content: ContentBlock[]): ModelResponse {
  return {
    content,
    stopReason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
    usage: { inputTokens: 0, outputTokens: 0 },
    model: "offline",
  };
}

const text = (t: string) => respond([{ type: "text", text: t }]);

/** The `content.agent` behaviour of the offline model. */
export function offlineAgent(request: ModelRequest): ModelResponse {
  const calls = callsOf(request);
  const step = calls.length;
  const use = (name: string, input: unknown, n: number): ContentBlock => ({
    type: "tool_use",
    id: `offline_${step + n}`,
    name,
    input,
  });
  const devicesCall = calls.find((c) => c.name === "list_devices");
  const notesCall = calls.find((c) => c.name === "list_notes");
  if (!devicesCall || !notesCall) {
    return respond([
      use("list_devices", {}, 0),
      use("list_notes", { onlyNew: true, limit: 50 }, 1),
    ]);
  }
  const devices = resultOf<Array<{ id: string }>>(devicesCall) ?? [];
  const notes = resultOf<{ notes: Array<{ id: string; pushedTo: string[] }> }>(notesCall)?.notes ??
    [];
  const pending = notes.flatMap((note) =>
    devices.filter((d) => !note.pushedTo.includes(d.id)).map((d) => ({ note, device: d }))
  );
  if (calls.some((c) => c.name === "create_push")) {
    const made = calls.filter((c) => c.name === "create_push" && resultOf(c)).length;
    const refused = calls.filter((c) => c.name === "create_push" && c.result?.isError).length;
    return text(
      `Created ${made} push${made === 1 ? "" : "es"}${refused ? `; ${refused} refused` : ""}.`,
    );
  }
  if (devices.length === 0) return text("No devices to push to.");
  if (pending.length === 0) return text("Nothing new to push.");
  const read = new Map<string, NoteForPush>();
  for (const call of calls.filter((c) => c.name === "read_note_content")) {
    const note = resultOf<NoteForPush>(call);
    if (note) read.set(note.id, note);
  }
  const unread = [...new Set(pending.map((p) => p.note.id))].filter((id) =>
    !calls.some((c) => c.name === "read_note_content" && (c.input as { id?: string })?.id === id)
  );
  if (unread.length) return respond(unread.map((id, i) => use("read_note_content", { id }, i)));
  const pushes = pending.filter((p) => read.has(p.note.id)).map(({ note, device }, i) => {
    const content = read.get(note.id)!;
    const { template, variables } = chooseTemplate(content);
    return use("create_push", {
      deviceId: device.id,
      template,
      variables,
      rawItemIds: [note.id],
      ...(content.summary
        ? { title: content.summary.title, summary: content.summary.summary }
        : {}),
    }, i);
  });
  return pushes.length ? respond(pushes) : text("Nothing could be read to push.");
}
