/**
 * The API's Prometheus metrics (prom-client): requests by route template and status, request
 * latency, and the search backend's latency and errors per operation. Each app has its own
 * registry, so tests can build many apps; main.ts adds the process metrics.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { CairnError } from '../errors/index.js';
import type { SearchBackend } from '../search/backend.js';

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
