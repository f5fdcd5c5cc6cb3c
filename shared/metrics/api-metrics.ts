/**
 * The API's Prometheus metrics (prom-client): requests by route template and status, request
 * latency, and the search backend's latency and errors per operation. Each app has its own
 * registry, so tests can build many apps; main.ts adds the process metrics.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CairnError } from '../errors/index.js';
import type { ExpensiveReason } from '../query/search-lanes.js';
import type { SearchBackend } from '../search/backend.js';
import type { ExpensiveLane } from '../search/expensive-lane.js';

/** Latency buckets (seconds) for HTTP requests and backend calls: 1 ms to 30 s. */
const LATENCY_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/** The backend operations that are timed. */
const BACKEND_OPERATIONS = [
  'search',
  'get',
  'domain',
  'extent',
  'childrenExtents',
  'aggregate',
  'walkIds',
  'upsert',
  'delete',
  'health',
];

export class ApiMetrics {
  readonly registry: Registry;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly requestDuration: Histogram<'method' | 'route'>;
  readonly backendDuration: Histogram<'backend' | 'operation'>;
  readonly backendErrors: Counter<'backend' | 'operation' | 'code'>;
  readonly expensiveAdmitted: Counter<'reason'>;
  readonly expensiveRefused: Counter<'bound'>;
  readonly refusalsHeld: Counter;

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    this.requests = new Counter({
      name: 'cairn_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.requestDuration = new Histogram({
      name: 'cairn_http_request_duration_seconds',
      help: 'Time from request to response, by method and route template',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
    this.backendDuration = new Histogram({
      name: 'cairn_backend_request_duration_seconds',
      help: 'Search backend call latency, by backend and operation',
      labelNames: ['backend', 'operation'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
    this.backendErrors = new Counter({
      name: 'cairn_backend_errors_total',
      help: 'Search backend calls that failed, by backend, operation and error code',
      labelNames: ['backend', 'operation', 'code'],
      registers: [registry],
    });
    this.expensiveAdmitted = new Counter({
      name: 'cairn_search_expensive_admitted_total',
      help: 'Expensive searches given a place in the expensive lane, by each reason they are expensive',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.expensiveRefused = new Counter({
      name: 'cairn_search_expensive_refused_total',
      help: 'Expensive searches refused (503) because the lane was full, by the bound that refused them (process or client)',
      labelNames: ['bound'],
      registers: [registry],
    });
    this.refusalsHeld = new Counter({
      name: 'cairn_refusals_held_total',
      help: 'Cost refusals (400 over a query limit, 503 of a full expensive lane, 413, 414) held because their client was refused faster than REFUSAL_PACE_PER_SECOND',
      registers: [registry],
    });
  }

  /** Counts a search given a place in the expensive lane, once per reason. */
  admittedExpensive(reasons: readonly ExpensiveReason[]): void {
    for (const reason of reasons) this.expensiveAdmitted.inc({ reason });
  }

  /** Serves the expensive lane's occupancy as a gauge read at each scrape. */
  observeLane(lane: ExpensiveLane): void {
    new Gauge({
      name: 'cairn_search_expensive_in_flight',
      help: 'Expensive searches running now (each holds a place in the expensive lane)',
      registers: [this.registry],
      collect() {
        this.set(lane.inFlight);
      },
    });
  }

  /**
   * Wraps a backend so that every timed operation is measured. A Proxy keeps the backend's
   * class (instanceof checks) and every other member as they are.
   */
  instrumentBackend<B extends SearchBackend>(backend: B): B {
    const { backendDuration, backendErrors } = this;
    return new Proxy(backend, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof property !== 'string' || !BACKEND_OPERATIONS.includes(property)) return value;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const labels = { backend: target.kind, operation: property };
          const stop = backendDuration.startTimer(labels);
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } catch (error) {
            const code = error instanceof CairnError ? error.code : 'INTERNAL';
            backendErrors.inc({ ...labels, code });
            throw error;
          } finally {
            stop();
          }
        };
      },
    });
  }
}
