/**
 * HttpSeries writes what prom-client's Counter and Histogram write for the same requests: the
 * text a scraper reads and the JSON `getMetricsAsJSON` answers, byte for byte.
 */
import { Counter, Histogram, Registry } from "prom-client";
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { HttpSeries } from "./http_series.ts";
import { HTTP_BUCKETS } from "./metrics.ts";

const COUNTER = { name: "http_requests_total", help: "Requests" };
const HISTOGRAM = { name: "http_request_duration_seconds", help: 'Durations \\ with "quotes"' };

/** `getMetricsAsJSON` as a consumer serialises it. */
const json = async (registry: Registry) =>
  JSON.parse(JSON.stringify(await registry.getMetricsAsJSON()));

/** Both registries, fed the same requests. */
function pair() {
  const theirs = new Registry();
  const labelNames = ["method", "route", "status"];
  const total = new Counter({ ...COUNTER, labelNames, registers: [theirs] });
  const duration = new Histogram({
    ...HISTOGRAM,
    labelNames,
    buckets: [...HTTP_BUCKETS],
    registers: [theirs],
  });
  const ours = new Registry();
  const series = new HttpSeries(ours, {
    counter: COUNTER,
    histogram: { ...HISTOGRAM, buckets: HTTP_BUCKETS },
  });
  const observe = (method: string, route: string, status: number, seconds: number) => {
    const labels = { method, route, status: String(status) };
    total.inc(labels);
    duration.observe(labels, seconds);
    series.observe(method, route, status, seconds);
  };
  return { theirs, ours, observe };
}

Deno.test("http series: the same text and JSON as prom-client's Counter and Histogram", async () => {
  const { theirs, ours, observe } = pair();
  assertEquals(await ours.metrics(), await theirs.metrics(), "before any request");
  // Interleaved label sets, values on a bound, between bounds, above the last, and zero.
  const requests: [string, string, number, number][] = [
    ["GET", "/health", 200, 0.0004],
    ["GET", "/api/display", 200, 0.005],
    ["GET", "/health", 200, 0.0051],
    ["POST", "/api/devices/{id}/push", 201, 0.3],
    ["GET", "/api/display", 401, 12],
    ["OTHER", "(unmatched)", 404, 0],
    ["GET", "/api/display", 200, 10],
    ["GET", 'a "route" \\ with\nescapes', 500, 2.5],
    ["GET", "/health", 200, 0.1 + 0.2],
  ];
  for (const request of requests) observe(...request);
  for (let i = 0; i < 1000; i++) observe("GET", "/api/display", 200, (i % 37) / 1000);
  assertEquals(await ours.metrics(), await theirs.metrics());
  assertEquals(await json(ours), await json(theirs));
  // Default labels are merged by the registry alike.
  theirs.setDefaultLabels({ instance: "a" });
  ours.setDefaultLabels({ instance: "a" });
  assertEquals(await ours.metrics(), await theirs.metrics());
  assertEquals(await json(ours), await json(theirs));
  // And a reset empties both.
  theirs.resetMetrics();
  ours.resetMetrics();
  observe("GET", "/health", 200, 0.001);
  assertEquals(await ours.metrics(), await theirs.metrics());
});
