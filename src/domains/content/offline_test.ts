import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { templateRegistry } from "../../infra/render/templates/registry.ts";
import { measure } from "../../infra/render/inspect.ts";
import { chooseTemplate, type NoteForPush } from "./offline_variables.ts";
import { describePicture, offlineSummarize } from "./offline_summary.ts";
import { parseSummary, summaryRequest } from "./summary_prompt.ts";

const templates = templateRegistry().list();

function summarise(text: string | null, pictures = 0) {
  const facts = measure(new Uint8Array(64 * 48).fill(200), 64, 48);
  const request = summaryRequest({
    title: null,
    text,
    pictures: Array.from({ length: pictures }, () => ({ filename: "p.jpg", facts })),
    templates,
  });
  const result = parseSummary(offlineSummarize(request), templates.map((t) => t.name), pictures);
  assert.ok(result);
  return result;
}

Deno.test("offline summary: deterministic, within the contract's sizes", () => {
  const text = "Buy presents.\n- [ ] Book for Anna\n- [x] Scarf for Tom\n- [ ] Wrapping paper";
  const a = summarise(text);
  assertEquals(a, summarise(text));
  assertEquals(a.summary.kind, "todo");
  assertEquals(a.summary.suggestedTemplate, "checklist");
  assertEquals(a.summary.title, "Buy presents.");
  assertEquals(a.summary.keyPoints, ["Book for Anna", "Scarf for Tom", "Wrapping paper"]);
  const photo = summarise(null, 1);
  assertEquals([photo.summary.kind, photo.summary.suggestedTemplate], ["photo", "photo"]);
  assertEquals(photo.descriptions.length, 1);
  assert.match(photo.descriptions[0], /bright landscape picture, 64x48 px/);
  assertEquals(summarise("Anna's birthday 2025-03-21").summary.suggestedTemplate, "reminder");
});

Deno.test("offline summary: pictures are described from what was measured", () => {
  assertEquals(describePicture(null, "corrupt"), "A picture that could not be read (corrupt).");
  const page = new Uint8Array(200 * 300).fill(250);
  for (let y = 20; y < 280; y += 12) {
    for (let x = 20; x < 180; x++) if (x % 7) page[y * 200 + x] = 20;
  }
  const facts = measure(page, 200, 300);
  assertEquals([facts.orientation, facts.layout], ["portrait", "document"]);
});

Deno.test("offline variables: every choice matches its template's schema", async () => {
  const note = (
    text: string | null,
    kind: string,
    template: string,
    pictures = 0,
  ): NoteForPush => ({
    id: crypto.randomUUID(),
    title: null,
    text,
    summary: {
      title: "A title",
      summary: "A summary.",
      keyPoints: ["one", "two"],
      kind: kind as never,
      language: "en",
      suggestedTemplate: template,
    },
    pictures: Array.from(
      { length: pictures },
      () => ({ fileId: crypto.randomUUID(), description: null }),
    ),
    createdAt: "2025-03-14T09:00:00Z",
  });
  const cases: Array<[NoteForPush, string]> = [
    [note("- [ ] milk\n- [x] eggs", "todo", "checklist"), "checklist"],
    [note("no list here", "todo", "checklist"), "note"],
    [note("2025-03-21\n09:00 Stand-up\n13:00 Lunch with Marta", "event", "agenda"), "agenda"],
    [note("Anna's birthday 2025-03-21", "event", "reminder"), "reminder"],
    [note("no date", "event", "agenda"), "note"],
    [note("“Simplicity.” — Dijkstra", "quote", "quote"), "quote"],
    [note(null, "photo", "photo", 1), "photo"],
    [note(null, "photo", "photo", 0), "note"],
    [note("Long read. Lots of points.", "reference", "headline"), "headline"],
    [note("x".repeat(30_000), "note", "note"), "note"],
  ];
  for (const [input, expected] of cases) {
    const choice = chooseTemplate(input);
    assertEquals(choice.template, expected, input.text ?? "");
    const checked = await templateRegistry().check(choice.template, choice.variables);
    assert.ok(checked?.ok, `${expected}: ${JSON.stringify(checked)}`);
  }
});
