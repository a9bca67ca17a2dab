/**
 * Briefs the offline Scene layout is judged by (its tests and golden images): the contents a new
 * user makes first. Test-only data, with a picture drawn in code so no photo is committed.
 */
import { encode } from "fast-png";
import type { SceneBrief } from "./scene_prompt.ts";

/** A brief without the output profile, which each test supplies. */
export type CaseBrief = Omit<SceneBrief, "viewport" | "colorMode">;

/**
 * A flat-colour landscape (sky, sun, two hill lines, a shore): a picture whose crop and scale
 * are plain to see, and whose PNG goldens stay small.
 */
function landscape(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const v = y / height;
      let colour = v < 0.25 ? [143, 188, 219] : [176, 210, 230];
      if ((u - 0.7) ** 2 * (width / height) ** 2 + (v - 0.28) ** 2 < 0.012) {
        colour = [250, 214, 120];
      }
      if (v > 0.55 - 0.12 * Math.sin(u * 7 + 1) * Math.sin(u * 3)) colour = [92, 122, 150];
      if (v > 0.68 - 0.1 * Math.sin(u * 5 + 2)) colour = [52, 92, 84];
      if (v > 0.84) colour = [38, 70, 64];
      data.set(colour, (y * width + x) * 3);
    }
  }
  return encode({ width, height, data, channels: 3 });
}

/** The pictures the cases show, by file id. */
export const SAMPLE_PICTURES: Record<string, Uint8Array> = {
  landscape: landscape(600, 400),
};

const LANDSCAPE = { fileId: "landscape", width: 600, height: 400, source: "upload" as const };

/** About 400 characters: a long note. */
export const LONG_NOTE = "Water the plants on the balcony, the basil twice because it dries " +
  "out in the afternoon sun. Call the landlord about the heating in the bedroom before " +
  "Thursday; the radiator only gets lukewarm. Pick up the parcel at the post office before " +
  "18:00 on Friday, bring the ID card. Book the train to Lyon for the 14th and ask Marie " +
  "whether she still needs the projector.";

const brief = (extra: Partial<CaseBrief>): CaseBrief => ({
  title: "",
  intent: "A widget for my desk",
  texts: [],
  links: [],
  images: [],
  ...extra,
});

/** The cases, by name. */
export const OFFLINE_CASES: Record<string, CaseBrief> = {
  "short": brief({ texts: ["Water the plants"] }),
  "long": brief({ texts: [LONG_NOTE] }),
  "titled": brief({
    title: "Weekend plans",
    texts: ["Hike around the lake on Saturday morning, then lunch at the hut."],
  }),
  "picture": brief({ images: [LANDSCAPE] }),
  "picture-text": brief({
    title: "Lake Bled",
    texts: ["Sunrise over the lake, 6 August"],
    images: [LANDSCAPE],
  }),
  "link": brief({
    links: [{
      url: "https://www.example.org/articles/slow-mornings",
      title: "The case for slow mornings",
      description: "Why ten quiet minutes before the phone make the whole day calmer.",
      text: "",
    }],
  }),
};
