/**
 * The small part of autocannon's API the benchmark uses (the package ships no types).
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  /** Options of one load run. */
  export interface AutocannonOptions {
    url: string;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    pipelining?: number;
  }

  /** Summary of one percentile-bearing histogram. */
  export interface HistogramSummary {
    average: number;
    mean: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    total: number;
  }

  /** The aggregated result of one run. */
  export interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
    latency: HistogramSummary;
    requests: HistogramSummary & { sent: number };
  }

  /** A running load test: emits `response` (client, statusCode, bytes, milliseconds). */
  export interface AutocannonInstance extends EventEmitter, PromiseLike<AutocannonResult> {
    stop(): void;
  }

  /** Starts a run; the instance resolves with its result. */
  export default function autocannon(options: AutocannonOptions): AutocannonInstance;
}
