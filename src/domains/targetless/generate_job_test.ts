import { assertEquals } from "../../../tests/helpers/assert.ts";
import { confine } from "./generate_job.ts";
import type { SceneBrief } from "./scene_prompt.ts";

const brief = {
  viewport: { width: 360, height: 170 },
  colorMode: "color",
  title: "",
  intent: "",
  texts: [],
  links: [],
  images: [],
} as SceneBrief;

Deno.test("a model's Scene keeps the requested viewport and only the content's own pictures", () => {
  const answer = {
    version: 2,
    viewport: { width: 9000, height: 9000 },
    background: "#000",
    elements: [
      {
        id: "a",
        type: "image",
        frame: { x: 0, y: 0, width: 1, height: 1 },
        properties: { fileId: "mine" },
      },
      {
        id: "b",
        type: "image",
        frame: { x: 0, y: 0, width: 1, height: 1 },
        properties: { fileId: "theirs" },
      },
      { id: "c", type: "image", frame: { x: 0, y: 0, width: 1, height: 1 }, properties: {} },
      {
        id: "d",
        type: "text",
        frame: { x: 0, y: 0, width: 1, height: 1 },
        properties: { text: "t" },
      },
      { id: "e", type: "future", extra: true },
    ],
  };
  const confined = confine(answer, brief, new Set(["mine"])) as Record<string, unknown>;
  assertEquals(confined.version, 1);
  assertEquals(confined.viewport, { width: 360, height: 170 });
  assertEquals((confined.elements as Array<{ id: string }>).map((e) => e.id), ["a", "d", "e"]);
  assertEquals(confine("nonsense", brief, new Set()), "nonsense");
  assertEquals(confine(null, brief, new Set()), null);
});
