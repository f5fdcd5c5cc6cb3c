/**
 * Whole answers kept in process memory by request key, each with the catalogue generation it
 * was made at; bounded in bytes, the least recently used out first. An answer is given back
 * only for the generation it was kept under and while it is younger than the maximum age.
 */

/** One kept answer: what the response carried, and when and at which generation. */
export interface StoredAnswer {
  generation: string;
  /** Date.now() when it was kept. */
  storedAt: number;
  /** Response headers the route set (names lower-case), in order. */
  headers: [string, string | number | string[]][];
  body: Buffer;
  /** The strong ETag of `body`, quoted. */
  etag: string;
  /** The route template of the metrics (services/api/middleware/metrics.ts). */
  route: string;
  /** Bytes counted against the bound. */
  bytes: number;
}

/** Limits of an AnswerStore. */
export interface AnswerStoreLimits {
  maxBytes: number;
  maxEntryBytes: number;
  maxAgeMs: number;
}

/** Bytes an answer is counted for: its body, key and headers, and a fixed overhead. */
export function answerBytes(key: string, body: Buffer, headers: StoredAnswer['headers']): number {
  let bytes = 256 + body.length + key.length * 2;
  for (const [name, value] of headers) bytes += name.length + String(value).length;
  return bytes;
}

/** An LRU of answers bounded in bytes (a Map keeps insertion order: the first is the oldest). */
export class AnswerStore {
  private readonly answers = new Map<string, StoredAnswer>();
  private used = 0;

  constructor(private readonly limits: AnswerStoreLimits) {}

  /** Bytes held now. */
  get bytes(): number {
    return this.used;
  }

  /** Answers held now. */
  get size(): number {
    return this.answers.size;
  }

  /** Whether an answer of `bodyBytes` may be kept at all. */
  accepts(bodyBytes: number): boolean {
    return bodyBytes <= this.limits.maxEntryBytes && bodyBytes < this.limits.maxBytes;
  }

  /**
   * The answer kept for the key at this generation, or undefined; an answer of another
   * generation or too old is dropped on the way.
   */
  get(key: string, generation: string, now = Date.now()): StoredAnswer | undefined {
    const answer = this.answers.get(key);
    if (!answer) return undefined;
    if (answer.generation !== generation || now - answer.storedAt > this.limits.maxAgeMs) {
      this.remove(key, answer);
      return undefined;
    }
    // Most recently used: to the end of the order.
    this.answers.delete(key);
    this.answers.set(key, answer);
    return answer;
  }

  /** Keeps an answer (replacing the key's), then drops the least recently used beyond the bound. */
  set(key: string, answer: StoredAnswer): void {
    if (!this.accepts(answer.body.length)) return;
    const previous = this.answers.get(key);
    if (previous) this.remove(key, previous);
    this.answers.set(key, answer);
    this.used += answer.bytes;
    for (const [oldestKey, oldest] of this.answers) {
      if (this.used <= this.limits.maxBytes) break;
      this.remove(oldestKey, oldest);
    }
  }

  private remove(key: string, answer: StoredAnswer): void {
    this.answers.delete(key);
    this.used -= answer.bytes;
  }
}
