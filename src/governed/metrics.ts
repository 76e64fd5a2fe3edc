/**
 * In-process metrics and the logger hook of governed writes (docs/governed-conventions.md#events, docs/decisions/B17.md):
 * counters and a histogram with a Prometheus text rendering. Runtime-neutral, no dependency.
 */

type Labels = Record<string, string>;

/** Default histogram buckets in milliseconds. */
export const DEFAULT_LATENCY_BUCKETS = [0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000] as const;

/** A monotonically increasing counter with labels. */
export interface Counter {
  inc(labels?: Labels, amount?: number): void;
  /** Current value for these labels (0 when never incremented). */
  value(labels?: Labels): number;
}

/** A histogram with fixed buckets. */
export interface Histogram {
  observe(value: number, labels?: Labels): void;
  /** Number of observations for these labels. */
  count(labels?: Labels): number;
}

/** The in-process registry. `render()` gives the Prometheus text exposition format (0.0.4). */
export interface MetricsRegistry {
  counter(name: string, help: string): Counter;
  histogram(name: string, help: string, buckets?: readonly number[]): Histogram;
  /** Prometheus text format; serve it with `Content-Type: text/plain; version=0.0.4`. */
  render(): string;
}

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelKey = (labels: Labels): string =>
  Object.keys(labels)
    .sort()
    .map((key) => `${key}="${escapeLabel(labels[key]!)}"`)
    .join(',');
const withBraces = (key: string): string => (key === '' ? '' : `{${key}}`);

interface HistogramSeries {
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * Creates an empty registry. Asking twice for the same name returns the same metric.
 *
 * @example
 * const metrics = createMetricsRegistry();
 * createGovernedService({ entity, storage, metrics });
 * new Response(metrics.render(), { headers: { 'content-type': 'text/plain; version=0.0.4' } });
 */
export function createMetricsRegistry(): MetricsRegistry {
  const renderers = new Map<string, () => string>();
  const counters = new Map<string, Counter>();
  const histograms = new Map<string, Histogram>();

  return {
    counter(name, help) {
      const existing = counters.get(name);
      if (existing !== undefined) return existing;
      const series = new Map<string, number>();
      const counter: Counter = {
        inc(labels = {}, amount = 1) {
          const key = labelKey(labels);
          series.set(key, (series.get(key) ?? 0) + amount);
        },
        value: (labels = {}) => series.get(labelKey(labels)) ?? 0,
      };
      counters.set(name, counter);
      renderers.set(name, () =>
        [`# HELP ${name} ${help}`, `# TYPE ${name} counter`, ...[...series].map(([key, value]) => `${name}${withBraces(key)} ${value}`)].join('\n'),
      );
      return counter;
    },
    histogram(name, help, bounds = DEFAULT_LATENCY_BUCKETS) {
      const existing = histograms.get(name);
      if (existing !== undefined) return existing;
      const series = new Map<string, HistogramSeries>();
      const histogram: Histogram = {
        observe(value, labels = {}) {
          const key = labelKey(labels);
          let entry = series.get(key);
          if (entry === undefined) {
            entry = { buckets: bounds.map(() => 0), sum: 0, count: 0 };
            series.set(key, entry);
          }
          bounds.forEach((bound, index) => {
            if (value <= bound) entry.buckets[index]! += 1;
          });
          entry.sum += value;
          entry.count += 1;
        },
        count: (labels = {}) => series.get(labelKey(labels))?.count ?? 0,
      };
      histograms.set(name, histogram);
      renderers.set(name, () => {
        const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
        for (const [key, entry] of series) {
          const sep = key === '' ? '' : ',';
          bounds.forEach((bound, index) => {
            lines.push(`${name}_bucket{${key}${sep}le="${bound}"} ${entry.buckets[index]}`);
          });
          lines.push(
            `${name}_bucket{${key}${sep}le="+Inf"} ${entry.count}`,
            `${name}_sum${withBraces(key)} ${entry.sum}`,
            `${name}_count${withBraces(key)} ${entry.count}`,
          );
        }
        return lines.join('\n');
      });
      return histogram;
    },
    render: () => `${[...renderers.values()].map((render) => render()).join('\n')}\n`,
  };
}

/** The registry governed services use unless given another one. */
export const defaultMetricsRegistry: MetricsRegistry = createMetricsRegistry();

/** The metrics of docs/governed-conventions.md#events, bound to one registry. */
export interface GovernedMetrics {
  writes: Counter;
  conflicts: Counter;
  rollbacks: Counter;
  auditLatency: Histogram;
}

/** Registers (or finds) the governed metrics in a registry. */
export function governedMetrics(registry: MetricsRegistry): GovernedMetrics {
  return {
    writes: registry.counter('entity_write_total', 'Governed entity writes by resource type and audit event type.'),
    conflicts: registry.counter('entity_conflict_total', 'Optimistic-concurrency conflicts by resource type.'),
    rollbacks: registry.counter('rollback_total', 'Rollbacks (and restores) by resource type.'),
    auditLatency: registry.histogram('audit_write_latency_ms', 'Time to append one audit record, in milliseconds.'),
  };
}

/** One structured log entry of a governed write or conflict. Never carries field values. */
export interface GovernedLogEntry {
  level: 'info' | 'warn';
  /** Audit event type, or `entity.conflict`. */
  event: string;
  tenantId: string;
  workspaceId: string | null;
  cellId: string | null;
  resourceType: string;
  resourceId: string;
  /** Version after the write (current version on a conflict). */
  version: number;
  actorId: string;
  requestId: string | null;
  /** Trace id of the request (its span's, else its `traceparent`'s), to find the trace of a log line. */
  traceId?: string | null;
}

/** The logger hook: receives structured entries. @default silent */
export type GovernedLogger = (entry: GovernedLogEntry) => void;
