/**
 * The HTTP request counter and duration histogram, counted on the request path by plain fields of
 * a series found once per label set, and handed to the prom-client registry as two metrics that
 * read those fields at scrape time. prom-client's own children hash and validate their labels on
 * every `inc` and `observe`, even when made once: a tenth of an unchanged display poll's
 * JavaScript (issue 40). The text is the one prom-client's Counter and Histogram write for the
 * same observations (names, types, label order, buckets): http_series_test.ts compares the two.
 */
import type { Registry } from "prom-client";

/** One label set's counts. */
interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative: [i] counts those in (bounds[i-1], bounds[i]]. */
  buckets: Float64Array;
}

/** A value of a metric as prom-client's registry formats it. */
interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  metricName?: string;
  /** Buckets carry none (null), as prom-client's without exemplars. */
  exemplar?: null;
}

/** What prom-client's registry reads of a metric (`registerMetric`, `metrics()`). */
interface RegistryMetric {
  name: string;
  help: string;
  type: "counter" | "histogram";
  aggregator: "sum";
  get(): Promise<
    { name: string; help: string; type: string; values: MetricValue[]; aggregator: "sum" }
  >;
  getForPromString?(): ReturnType<RegistryMetric["get"]>;
  reset(): void;
}

export interface HttpSeriesOptions {
  counter: { name: string; help: string };
  histogram: { name: string; help: string; buckets: readonly number[] };
}

/** Requests by method, route template and status; the label sets are closed (metrics.ts). */
export class HttpSeries {
  /** method → route → status → series, as the request path looks them up. */
  readonly #byMethod = new Map<string, Map<string, Map<number, Series>>>();
  /** Every series in the order it first appeared (prom-client's order). */
  #all: Series[] = [];
  readonly #bounds: readonly number[];

  constructor(registry: Registry, private readonly options: HttpSeriesOptions) {
    this.#bounds = [...options.histogram.buckets].sort((a, b) => a - b);
    registry.registerMetric(this.#counter() as never);
    registry.registerMetric(this.#histogram() as never);
  }

  /** One answered request. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const series = this.#series(method, route, status);
    series.count++;
    series.sum += seconds;
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]) {
        series.buckets[i]++;
        return;
      }
    }
  }

  #series(method: string, route: string, status: number): Series {
    let byRoute = this.#byMethod.get(method);
    if (!byRoute) this.#byMethod.set(method, byRoute = new Map());
    let byStatus = byRoute.get(route);
    if (!byStatus) byRoute.set(route, byStatus = new Map());
    let series = byStatus.get(status);
    if (!series) {
      series = {
        labels: { method, route, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Float64Array(this.#bounds.length),
      };
      byStatus.set(status, series);
      this.#all.push(series);
    }
    return series;
  }

  #reset(): void {
    this.#byMethod.clear();
    this.#all = [];
  }

  #counter(): RegistryMetric {
    const { name, help } = this.options.counter;
    const get = () =>
      Promise.resolve({
        name,
        help,
        type: "counter",
        values: this.#all.map((s) => ({ value: s.count, labels: s.labels })),
        aggregator: "sum" as const,
      });
    return { name, help, type: "counter", aggregator: "sum", get, reset: () => this.#reset() };
  }

  #histogram(): RegistryMetric {
    const { name, help } = this.options.histogram;
    const bucket = `${name}_bucket`;
    // The registry's text: `le` in the value's labels, the series' labels shared after it.
    const values = (): MetricValue[] =>
      this.#all.flatMap((s) => {
        let below = 0;
        const out: MetricValue[] = this.#bounds.map((le, i) => {
          below += s.buckets[i];
          return {
            value: below,
            labels: { le },
            sharedLabels: s.labels,
            metricName: bucket,
            exemplar: null,
          };
        });
        out.push(
          {
            value: s.count,
            labels: { le: "+Inf" },
            sharedLabels: s.labels,
            metricName: bucket,
            exemplar: null,
          },
          { value: s.sum, labels: {}, sharedLabels: s.labels, metricName: `${name}_sum` },
          { value: s.count, labels: {}, sharedLabels: s.labels, metricName: `${name}_count` },
        );
        return out;
      });
    const result = (values: MetricValue[]) => ({
      name,
      help,
      type: "histogram",
      values,
      aggregator: "sum" as const,
    });
    return {
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      getForPromString: () => Promise.resolve(result(values())),
      // JSON (`getMetricsAsJSON`): the labels splayed into one object, as prom-client's.
      get: () =>
        Promise.resolve(result(
          values().map(({ sharedLabels, labels, ...rest }) => ({
            ...rest,
            labels: { ...labels, ...sharedLabels },
          })),
        )),
      reset: () => this.#reset(),
    };
  }
}
