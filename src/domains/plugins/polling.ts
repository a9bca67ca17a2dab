/**
 * A polling plugin's fetch (CONTRACT.md, TRMNL's rules): each URL (Liquid in it, its headers and
 * body seeing the custom fields) fetched through the outbound guard; a JSON object's keys become
 * merge variables, a JSON array is nested under `data`, and several URLs give `IDX_0`, `IDX_1`,
 * … in order. Any URL failing fails the whole poll: the caller keeps the last good data.
 */
import type { LinkBody, LinkFailure, LinkRequest } from "../../infra/outbound/fetch_link.ts";
import type { PluginPolling } from "./tables.ts";

/** What a poll fetches with (the SSRF-safe fetcher; a stub in unit tests). */
export interface PollFetcher {
  fetch(link: string, init?: LinkRequest): Promise<LinkBody | LinkFailure>;
}

/** Fills Liquid in a URL, header or body from the custom fields. */
export type Interpolate = (text: string) => Promise<string>;

export type PollResult =
  | { ok: true; variables: Record<string, unknown> }
  | { ok: false; message: string };

/** One answer's merge variables: an object as it is, an array (or any other JSON) under `data`. */
function variablesOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : { data: value };
}

async function fetchOne(
  fetcher: PollFetcher,
  polling: PluginPolling,
  url: string,
  fill: Interpolate,
): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  const headers: Record<string, string> = Object.fromEntries(
    await Promise.all(
      Object.entries(polling.headers ?? {}).map(async ([name, value]) => [name, await fill(value)]),
    ),
  );
  if (Object.values(headers).some((value) => /[\r\n\0]/.test(value))) {
    return { ok: false, message: "A polling header is not one line once filled" };
  }
  const verb = polling.verb ?? "GET";
  const body = verb === "POST" && polling.body !== undefined
    ? new TextEncoder().encode(await fill(polling.body))
    : undefined;
  const answer = await fetcher.fetch((await fill(url)).trim(), {
    method: verb,
    headers: { Accept: "application/json", ...headers },
    ...(body ? { body } : {}),
  });
  if (!answer.ok) return { ok: false, message: answer.message };
  try {
    return { ok: true, value: JSON.parse(new TextDecoder().decode(answer.body)) };
  } catch {
    return { ok: false, message: `${answer.url} did not answer JSON` };
  }
}

/** The merge variables of one poll of all the plugin's URLs, or why it failed. */
export async function poll(
  fetcher: PollFetcher,
  polling: PluginPolling,
  fill: Interpolate,
): Promise<PollResult> {
  let answers;
  try {
    answers = await Promise.all(polling.urls.map((url) => fetchOne(fetcher, polling, url, fill)));
  } catch (error) {
    // Liquid in a URL, header or body that does not render.
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const failed = answers.find((answer) => !answer.ok);
  if (failed && !failed.ok) return failed;
  const values = answers.map((answer) => answer.ok ? answer.value : undefined);
  if (values.length === 1) return { ok: true, variables: variablesOf(values[0]) };
  return {
    ok: true,
    variables: Object.fromEntries(values.map((value, i) => [`IDX_${i}`, value])),
  };
}
