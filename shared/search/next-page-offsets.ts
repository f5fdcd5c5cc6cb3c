/**
 * The offsets this process has handed out as a next page, by query: a page beyond
 * QUERY_MAX_OFFSET on a sort other than the index order is answered only at an offset where an
 * earlier page of the same query ended, the offset a `next` link (STAC `token`, CSW
 * `nextRecord`, OpenSearch `next`) points to. The backend keeps its paging position there
 * (search engines: a sort checkpoint), so such a page costs what the first page costs, while a
 * cold deep offset would walk every record before it.
 *
 * A bounded LRU: least recently used queries go first, and each query keeps its most recent
 * offsets.
 */
export class NextPageOffsets {
  private readonly queries = new Map<string, Set<number>>();

  constructor(
    private readonly maxQueries = 1000,
    private readonly maxOffsetsPerQuery = 512,
  ) {}

  /** Whether a page of the query (its key) ended at `offset`. */
  has(key: string, offset: number): boolean {
    const offsets = this.queries.get(key);
    if (!offsets?.has(offset)) return false;
    this.queries.delete(key);
    this.queries.set(key, offsets);
    return true;
  }

  /** Remembers that a page of the query ended at `offset` (a next page starts there). */
  add(key: string, offset: number): void {
    let offsets = this.queries.get(key);
    if (offsets) this.queries.delete(key);
    else offsets = new Set();
    this.queries.set(key, offsets);
    offsets.delete(offset);
    offsets.add(offset);
    if (offsets.size > this.maxOffsetsPerQuery) {
      offsets.delete(offsets.values().next().value as number);
    }
    if (this.queries.size > this.maxQueries) {
      this.queries.delete(this.queries.keys().next().value as string);
    }
  }
}
