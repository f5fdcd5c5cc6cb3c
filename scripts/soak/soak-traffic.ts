/**
 * The soak's traffic: query loops over a mix of every protocol (the benchmark's mix plus STAC
 * GET, CQL2 JSON, CSW 3.0 POST with an FES filter, GetRecordById, one record, the OpenSearch
 * description), and write loops (bulk ingest, create, replace, delete) with a real editor
 * token. Every answer that is not the expected status is an error; every query's latency is
 * kept with its time, for the drift between the first and the last minute.
 */
import { TokenClient } from '../../shared/auth/token-exchange.js';
import { COLLECTION_ID } from '../../services/api/common/urls.js';
import { buildQueryMix } from '../bench/query-mix.js';
import { generateRecord } from '../corpus/generator.js';
import { CORPUS_SEED, REALM } from './soak-catalogue.js';

/** Records one write rotation creates (a bulk ingest and one create); its delete step removes as many. */
const CREATED_PER_ROTATION = 11;
const BULK_RECORDS = CREATED_PER_ROTATION - 1;

/** One request of the mix. */
export interface SoakCase {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  contentType?: string;
}

/** A query's latency, `at` milliseconds after the start. */
export interface LatencySample {
  case: string;
  at: number;
  ms: number;
}

/** An unexpected answer (or none). */
export interface SoakError {
  at: number;
  case: string;
  status: number;
  detail: string;
}

/** Seed of the records the writers create (the corpus uses CORPUS_SEED). */
const WRITE_SEED = 777;
const ITEMS = `/catalogue/collections/${encodeURIComponent(COLLECTION_ID)}/items`;
/** A request gets this long to answer; beyond it, it is an error. */
const CLIENT_TIMEOUT_MS = 30_000;

const CQL2_JSON = JSON.stringify({
  op: 'and',
  args: [
    { op: '=', args: [{ property: 'type' }, 'dataset'] },
    { op: 's_intersects', args: [{ property: 'geometry' }, { bbox: [-10, 40, 20, 60] }] },
  ],
});

const CSW3_FES_POST = `<?xml version="1.0" encoding="UTF-8"?>
<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/3.0" xmlns:fes="http://www.opengis.net/fes/2.0"
    service="CSW" version="3.0.0" maxRecords="10">
  <csw:Query typeNames="csw:Record">
    <csw:ElementSetName>summary</csw:ElementSetName>
    <csw:Constraint version="2.0.0">
      <fes:Filter>
        <fes:And>
          <fes:PropertyIsLike wildCard="%" singleChar="_" escapeChar="\\">
            <fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>%sea%</fes:Literal>
          </fes:PropertyIsLike>
          <fes:BBOX><fes:ValueReference>ows:BoundingBox</fes:ValueReference>
            <gml:Envelope xmlns:gml="http://www.opengis.net/gml/3.2" srsName="urn:ogc:def:crs:OGC:1.3:CRS84">
              <gml:lowerCorner>-30 30</gml:lowerCorner><gml:upperCorner>40 72</gml:upperCorner>
            </gml:Envelope>
          </fes:BBOX>
        </fes:And>
      </fes:Filter>
    </csw:Constraint>
  </csw:Query>
</csw:GetRecords>`;

/** The query mix for a corpus of `records` generated records. */
export function buildSoakCases(records: number): SoakCase[] {
  const bench = buildQueryMix({ corpusSize: records, deepOffset: 100_010, pageSize: 10 }).map(
    (queryCase): SoakCase => ({
      name: queryCase.name,
      method: queryCase.method,
      path: queryCase.path,
      ...(queryCase.body !== undefined && {
        body: JSON.stringify(queryCase.body),
        contentType: 'application/json',
      }),
    }),
  );
  const someId = generateRecord(Math.floor(records / 2), CORPUS_SEED).id;
  return [
    ...bench,
    {
      name: 'stac-get-search',
      method: 'GET',
      path: '/catalogue/search?bbox=-10,40,20,60&limit=10',
    },
    {
      name: 'records-cql2-json',
      method: 'POST',
      path: `${ITEMS}?limit=10`,
      body: CQL2_JSON,
      contentType: 'application/json',
    },
    {
      name: 'csw3-post-fes',
      method: 'POST',
      path: '/catalogue/csw',
      body: CSW3_FES_POST,
      contentType: 'application/xml',
    },
    {
      name: 'csw-getrecordbyid',
      method: 'GET',
      path: `/catalogue/csw?service=CSW&version=2.0.2&request=GetRecordById&elementSetName=full&id=${String(someId)}`,
    },
    { name: 'records-item', method: 'GET', path: `${ITEMS}/${String(someId)}` },
    { name: 'opensearch-description', method: 'GET', path: '/catalogue/opensearch' },
  ];
}

/** Keeps a valid editor token (user alice of the test realm), renewed every two minutes. */
export class SoakToken {
  private token = '';
  private renewedAt = 0;
  private readonly client: TokenClient;

  constructor(keycloak: string) {
    this.client = new TokenClient({
      tokenEndpoint: `${keycloak}/realms/${REALM}/protocol/openid-connect/token`,
      clientId: 'cairn-web',
    });
  }

  async current(): Promise<string> {
    if (Date.now() - this.renewedAt > 120_000) {
      const tokens = await this.client.requestToken({
        grant_type: 'password',
        username: 'alice',
        password: 'alice-password',
      });
      this.token = tokens.accessToken;
      this.renewedAt = Date.now();
    }
    return this.token;
  }
}

export interface TrafficOptions {
  origin: string;
  cases: SoakCase[];
  token: SoakToken;
  concurrency: number;
  writers: number;
  writeIntervalMs: number;
  /** Records in the corpus (ids the writers replace). */
  records: number;
}

/** Runs the traffic for a while; keeps latencies, errors and what the writes changed. */
export class SoakTraffic {
  readonly latencies: LatencySample[] = [];
  readonly errors: SoakError[] = [];
  readonly requestsByCase = new Map<string, number>();
  readonly created = new Set<string>();
  readonly deleted = new Set<string>();
  private startedAt = 0;
  private deadline = 0;
  private nextCase = 0;
  private nextRecord = 0;
  private nextWrite = 0;

  constructor(private readonly options: TrafficOptions) {}

  /** Milliseconds since the traffic started. */
  get elapsed(): number {
    return Date.now() - this.startedAt;
  }

  /** Every case must answer 200 before the run starts (a broken case is not a soak finding). */
  async probe(): Promise<void> {
    for (const soakCase of this.options.cases) {
      const { status, text } = await this.send(soakCase.method, soakCase.path, soakCase.body, {
        ...(soakCase.contentType && { 'content-type': soakCase.contentType }),
      });
      if (status !== 200)
        throw new Error(`case ${soakCase.name} answers ${status}: ${text.slice(0, 300)}`);
    }
  }

  /** Runs the query and write loops for `seconds`. */
  async run(seconds: number): Promise<void> {
    this.startedAt = Date.now();
    this.deadline = this.startedAt + seconds * 1000;
    const loops = [
      ...Array.from({ length: this.options.concurrency }, () => this.loop(() => this.query(), 0)),
      ...Array.from({ length: this.options.writers }, () =>
        this.loop(() => this.write(), this.options.writeIntervalMs),
      ),
    ];
    await Promise.all(loops);
  }

  /** Records whose net effect the catalogue must show: created minus deleted. */
  get netCreated(): number {
    return this.created.size - this.deleted.size;
  }

  private async loop(step: () => Promise<void>, pauseMs: number): Promise<void> {
    while (Date.now() < this.deadline) {
      await step();
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  private async query(): Promise<void> {
    const soakCase = this.options.cases[this.nextCase++ % this.options.cases.length];
    if (soakCase === undefined) throw new Error('the soak has no cases');
    const at = this.elapsed;
    const started = performance.now();
    const { status, text } = await this.send(soakCase.method, soakCase.path, soakCase.body, {
      ...(soakCase.contentType && { 'content-type': soakCase.contentType }),
    });
    const ms = performance.now() - started;
    this.requestsByCase.set(soakCase.name, (this.requestsByCase.get(soakCase.name) ?? 0) + 1);
    if (status !== 200) this.fail(soakCase.name, at, status, text);
    else this.latencies.push({ case: soakCase.name, at, ms });
  }

  /** One write of the rotation: bulk ingest (10 records), create, replace, delete (11). */
  private async write(): Promise<void> {
    const token = await this.options.token.current();
    const auth = { authorization: `Bearer ${token}` };
    const kind = ['bulk-ingest', 'create', 'replace', 'delete'][this.nextWrite++ % 4];
    const at = this.elapsed;
    const newRecords = (count: number) =>
      Array.from({ length: count }, () => generateRecord(this.nextRecord++, WRITE_SEED));
    let answer: { status: number; text: string };
    let expected: number[];
    let onSuccess = (): void => undefined;
    if (kind === 'bulk-ingest') {
      const records = newRecords(BULK_RECORDS);
      answer = await this.send(
        'POST',
        '/catalogue/admin/ingest',
        records.map((record) => JSON.stringify(record)).join('\n'),
        { ...auth, 'content-type': 'application/x-ndjson' },
      );
      expected = [200, 202];
      onSuccess = () => records.forEach((record) => this.created.add(String(record.id)));
    } else if (kind === 'create') {
      const [record] = newRecords(1);
      if (record === undefined) throw new Error('newRecords(1) gave no record');
      answer = await this.send('POST', ITEMS, JSON.stringify(record), {
        ...auth,
        'content-type': 'application/json',
      });
      expected = [201, 202];
      onSuccess = () => this.created.add(String(record.id));
    } else if (kind === 'replace') {
      const index = this.nextWrite % this.options.records;
      const record = generateRecord(index, CORPUS_SEED);
      const properties = record.properties as Record<string, unknown>;
      const revised = {
        ...record,
        properties: { ...properties, title: `Revised ${String(properties.title)}` },
      };
      answer = await this.send('PUT', `${ITEMS}/${String(record.id)}`, JSON.stringify(revised), {
        ...auth,
        'content-type': 'application/json',
      });
      expected = [200, 202];
    } else {
      // As many deletes as the rotation created, so that the catalogue keeps its size and the
      // first and last minutes query the same amount of data.
      for (let n = 0; n < CREATED_PER_ROTATION; n += 1) await this.deleteOldestCreated(auth);
      return;
    }
    if (expected.includes(answer.status)) onSuccess();
    else this.fail(`write:${kind}`, at, answer.status, answer.text);
  }

  /**
   * Deletes the oldest created record the catalogue already shows (a queued create may not be
   * written yet, and DELETE answers 404 for a record that does not exist).
   */
  private async deleteOldestCreated(auth: Record<string, string>): Promise<void> {
    const at = this.elapsed;
    const id = [...this.created].find((candidate) => !this.deleted.has(candidate));
    if (id === undefined) return;
    const shown = await this.send('GET', `${ITEMS}/${id}`, undefined, {});
    if (shown.status === 404) return;
    const answer = await this.send('DELETE', `${ITEMS}/${id}`, undefined, auth);
    if ([204, 202].includes(answer.status)) this.deleted.add(id);
    else this.fail('write:delete', at, answer.status, answer.text);
  }

  private fail(name: string, at: number, status: number, text: string): void {
    this.errors.push({ at, case: name, status, detail: text.slice(0, 300) });
  }

  private async send(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<{ status: number; text: string }> {
    try {
      const response = await fetch(`${this.options.origin}${path}`, {
        method,
        headers,
        ...(body !== undefined && { body }),
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      return { status: response.status, text: await response.text() };
    } catch (error) {
      return { status: 0, text: `no answer: ${(error as Error).message}` };
    }
  }
}
