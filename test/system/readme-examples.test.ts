/**
 * The README's example queries work as written: the URL under "The two commands" and every
 * curl command of "Try it" run against the catalogue `npm start` serves (the same 300 generated
 * sample records, seed 42, that scripts/seed-samples.ts loads): each shows several records, a
 * full page (or every match when fewer), and exactly the number of matches its comment states.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { createCatalogueApp } from '../support/catalogue-app.js';
import { REPO_ROOT } from '../support/fixtures.js';
import type { TestApp } from '../support/test-app.js';
import { defined } from '../support/defined.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const ORIGIN = 'http://127.0.0.1:8000';
/** What "several records" means for an example. */
const SEVERAL = 3;

/** The text of a README section (`## title`) up to the next one. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no section "${title}"`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** Splits a shell command into words, honouring single and double quotes. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g))
    words.push(defined(match[1] ?? match[2]?.replace(/\\(.)/g, '$1') ?? match[3], 'a word'));
  return words;
}

interface ExampleRequest {
  command: string;
  /** The number of matches the README's comment above the command states ("13 records match"). */
  statedMatches?: number;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Reads a curl command as the request it sends (-G, -d, --data-urlencode, -H). */
function readCurl(command: string, base: string): ExampleRequest {
  const words = shellWords(command.replaceAll('$B', base));
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${command}`);
  let url: string | undefined;
  let asQuery = false;
  const data: string[] = [];
  const headers: Record<string, string> = {};
  for (let index = 1; index < words.length; index += 1) {
    const word = defined(words[index], `word ${index}`);
    const argument = () => defined(words[++index], `the argument of ${word}`);
    if (word === '-G') asQuery = true;
    else if (word === '-d') data.push(argument());
    else if (word === '--data-urlencode') {
      const [name, ...value] = argument().split('=');
      data.push(`${defined(name, 'a parameter name')}=${encodeURIComponent(value.join('='))}`);
    } else if (word === '-H') {
      const [name, ...value] = argument().split(':');
      headers[defined(name, 'a header name').trim()] = value.join(':').trim();
    } else if (word.startsWith('-')) throw new Error(`curl option ${word} is not understood`);
    else url = word;
  }
  if (!url?.startsWith(ORIGIN)) throw new Error(`no ${ORIGIN} URL in: ${command}`);
  const path = url.slice(ORIGIN.length);
  if (data.length === 0) return { command, method: 'GET', path, headers };
  if (asQuery)
    return {
      command,
      method: 'GET',
      path: `${path}${path.includes('?') ? '&' : '?'}${data.join('&')}`,
      headers,
    };
  return { command, method: 'POST', path, headers, body: data.join('&') };
}

/** The curl commands of the "Try it" section, continuation lines joined. */
function tryItRequests(): ExampleRequest[] {
  const block = /```sh\n([\s\S]*?)```/.exec(section('Try it'))?.[1] ?? '';
  const base = /^B=(\S+)$/m.exec(block)?.[1];
  if (!base) throw new Error('the "Try it" block sets no B=');
  const lines = block.replace(/\\\n\s*/g, '').split('\n');
  return lines.flatMap((line, index) => {
    if (!line.startsWith('curl ')) return [];
    const stated = /\((\d+) records match/.exec(lines[index - 1] ?? '')?.[1];
    const example = readCurl(line, base);
    return [stated === undefined ? example : { ...example, statedMatches: Number(stated) }];
  });
}

/** How many records match, as a response says (numberMatched, CSW, OpenSearch totalResults). */
function countMatches(response: request.Response): number {
  if (response.type.includes('json')) return Number(response.body.numberMatched);
  const text = response.text;
  const matched = /numberOfRecordsMatched="(\d+)"/.exec(text) ?? /totalResults>(\d+)</.exec(text);
  return Number(defined(matched?.[1], 'a count of matches in the response'));
}

/** The page size an example asks for (limit, maxRecords, or in a JSON body). */
function requestedLimit(example: ExampleRequest): number {
  const query = new URL(example.path, ORIGIN).searchParams;
  const limit =
    query.get('limit') ??
    query.get('maxRecords') ??
    (example.body ? String((JSON.parse(example.body) as { limit?: number }).limit) : null);
  return Number(defined(limit ?? undefined, `a page size in ${example.command}`));
}

/** How many records a response shows (features, CSW records returned, Atom entries). */
function countRecords(response: request.Response): number {
  if (response.type.includes('json')) return (response.body.features ?? []).length;
  const text = response.text;
  const returned = /numberOfRecordsReturned="(\d+)"/.exec(text);
  if (returned) return Number(returned[1]);
  return (text.match(/<entry>/g) ?? []).length;
}

async function send(app: TestApp, example: ExampleRequest): Promise<request.Response> {
  const client = request(app.app);
  const pending = example.method === 'GET' ? client.get(example.path) : client.post(example.path);
  for (const [name, value] of Object.entries(example.headers)) pending.set(name, value);
  return example.body === undefined ? pending : pending.send(example.body);
}

describe("the README's example queries (npm start's sample catalogue)", function () {
  this.timeout(60_000);
  let catalogue: TestApp;

  before(async () => {
    catalogue = await createCatalogueApp(
      [...generateRecords(300)].map((record, index) => ({
        name: `sample ${index}`,
        content: JSON.stringify(record),
      })),
    );
  });
  after(async () => {
    await catalogue?.close();
  });

  it('the example URL of "The two commands" shows several records and a next page', async () => {
    const url = new RegExp(`\`(${ORIGIN}/catalogue/[^\`]+)\``).exec(section('The two commands'));
    expect(url, 'an example URL under "The two commands"').to.not.equal(null);
    const response = await request(catalogue.app).get(
      defined(url?.[1], 'the example URL').slice(ORIGIN.length),
    );
    expect(response.status).to.equal(200);
    expect(response.body.features).to.have.length.of.at.least(SEVERAL);
    expect(response.body.numberMatched).to.be.above(response.body.numberReturned);
    expect(response.body.links.map((link: { rel: string }) => link.rel)).to.include('next');
  });

  it('reads every curl command of "Try it", and the counts its comments state', () => {
    const requests = tryItRequests();
    expect(requests.map((example) => example.method)).to.include.members(['GET', 'POST']);
    expect(requests.length).to.be.at.least(4);
    expect(requests.some((example) => example.statedMatches !== undefined)).to.equal(true);
  });

  for (const example of tryItRequests()) {
    it(`${example.method} ${example.path.slice(0, 90)} shows several records`, async () => {
      const response = await send(catalogue, example);
      expect(response.status, response.text.slice(0, 300)).to.equal(200);
      const matched = countMatches(response);
      expect(matched, example.command).to.be.at.least(SEVERAL);
      expect(countRecords(response), example.command).to.equal(
        Math.min(matched, requestedLimit(example)),
      );
      if (example.statedMatches !== undefined)
        expect(matched, `the count the README states for ${example.command}`).to.equal(
          example.statedMatches,
        );
    });
  }

  it('reads curl options as curl does, and refuses ones it does not know', () => {
    expect(
      readCurl(`curl -G "$B/x" -d limit=3 --data-urlencode "filter=a = 'b c'"`, `${ORIGIN}/c`),
    ).to.deep.include({ method: 'GET', path: "/c/x?limit=3&filter=a%20%3D%20'b%20c'" });
    expect(
      readCurl(`curl "$B/s" -H 'Content-Type: application/json' -d '{"a": 1}'`, ORIGIN),
    ).to.deep.include({
      method: 'POST',
      path: '/s',
      headers: { 'Content-Type': 'application/json' },
      body: '{"a": 1}',
    });
    expect(() => readCurl('curl -X PUT "$B/x"', ORIGIN)).to.throw('-X');
  });
});
