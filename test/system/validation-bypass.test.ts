/**
 * The searches (Records items GET, STAC search GET and POST) skip the OpenAPI request validator
 * because their parse functions check every parameter themselves (app.ts `unvalidatedRoute`).
 * This suite proves it: every parameter the validation document lists for these routes (the
 * queryables too) and every POST body member is sent a series of bad and edge values, once
 * through the app as it is and once through the same app behind the full validator (as every
 * request went before), and both must answer the same status with the same error code.
 */
import { expect } from 'chai';
import express, { type Express } from 'express';
import request from 'supertest';
import { unvalidatedRoute } from '../../services/api/app.js';
import { PACKAGE_VERSION } from '../../services/api/html/assets.js';
import { renderJsonError } from '../../services/api/middleware/errors.js';
import type { OpenApiDocument } from '../../services/api/common/openapi.js';
import { buildValidationDocument } from '../../services/api/openapi/document.js';
import { createRequestValidator } from '../../services/api/openapi/validator.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { defined } from '../support/defined.js';

const ROOT = '/catalogue';
const ITEMS = `${ROOT}/collections/metadata:main/items`;

/** Bad and edge values for a query parameter. */
const QUERY_VALUES = [
  '',
  ' ',
  'x',
  '0',
  '-1',
  '1.5',
  '1e3',
  '10',
  '007',
  'true',
  'TRUE',
  'a,b',
  ',',
  '1,2,3',
  '1,2,3,4',
  '1,2,3,4,5',
  '1,2,3,4,5,6',
  '-10,40,20,60',
  'a:b:c',
  ':',
  '-',
  '+x',
  '-title',
  '!',
  'http://x',
  'EPSG:4326',
  '[]',
  '{}',
  'null',
  '2000-01-01',
  '2000-01-01/..',
  '99999999999999999999',
  'type:5:count_asc',
];

/** Bad and edge values for a STAC POST body member. */
const BODY_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  10,
  'x',
  '',
  'a,b',
  [],
  ['a'],
  [1, 2, 3],
  [1, 2, 3, 4],
  [-10, 40, 20, 60],
  [1, 2, 3, 4, 5, 6],
  {},
  { type: 'Point', coordinates: [0, 0] },
  { op: '=', args: [{ property: 'title' }, 'x'] },
  [{ field: 'title', direction: 'up' }],
];

interface Answer {
  status: number;
  code?: string;
}

describe('searches skip the OpenAPI request validator: their parsers give the same answers', function () {
  this.timeout(120_000);
  let test: TestApp;
  let validated: Express;
  let document: Readonly<OpenApiDocument>;

  before(async () => {
    test = await createTestApp(20);
    document = buildValidationDocument({
      serverUrl: '/catalogue',
      rootUrl: '/',
      service: test.config.service,
      version: PACKAGE_VERSION,
      limits: test.config.limits,
    });
    // The app behind the full validator, as every search was before.
    validated = express();
    validated.set('query parser', 'simple');
    validated.use(express.json({ limit: test.config.limits.bodyBytes }));
    validated.use(createRequestValidator(document));
    validated.use(test.app);
    validated.use(renderJsonError);
  });
  after(async () => {
    await test?.close();
  });

  const answer = (response: request.Response): Answer => ({
    status: response.status,
    ...(response.status >= 400 && { code: (response.body as { code?: string }).code }),
  });

  function parameterNames(path: string): string[] {
    const operation = (document.paths as Record<string, { get?: { parameters?: unknown[] } }>)[path]
      ?.get;
    const components = (document.components?.parameters ?? {}) as Record<string, { name: string }>;
    return (operation?.parameters ?? [])
      .map((parameter) => {
        const reference = (parameter as { $ref?: string }).$ref;
        return reference
          ? defined(components[reference.split('/').pop() ?? ''], `the parameter ${reference}`)
          : (parameter as { name: string; in: string });
      })
      .filter((parameter) => (parameter as { in?: string }).in !== 'path')
      .map((parameter) => parameter.name);
  }

  it('skips the searches (with their OpenAPI path) and the undocumented CSW and OpenSearch', () => {
    const skipped = (method: string, path: string) =>
      unvalidatedRoute({ method, path } as express.Request);
    expect(skipped('GET', ITEMS)).to.deep.equal({
      route: '/catalogue/collections/{collectionId}/items',
    });
    // The colon of the collection id percent-encoded, as many clients send it.
    for (const encoded of ['%3A', '%3a']) {
      expect(skipped('GET', ITEMS.replace(':', encoded))).to.deep.equal({
        route: '/catalogue/collections/{collectionId}/items',
      });
    }
    expect(skipped('GET', `${ROOT}/search`)).to.deep.equal({ route: '/catalogue/search' });
    expect(skipped('POST', `${ROOT}/search`)).to.deep.equal({ route: '/catalogue/search' });
    expect(skipped('GET', `${ROOT}/csw`)).to.deep.equal({});
    expect(skipped('POST', `${ROOT}/opensearch/description`)).to.deep.equal({});
    expect(skipped('POST', ITEMS)).to.equal(undefined);
    expect(skipped('GET', `${ITEMS}/x`)).to.equal(undefined);
    expect(skipped('GET', `${ROOT}/collections`)).to.equal(undefined);
    expect(skipped('GET', `${ROOT}/cswx`)).to.equal(undefined);
    const paths = Object.keys(document.paths);
    expect(paths.some((path) => /^\/(csw|opensearch)/.test(path))).to.equal(false);
  });

  const routes: [string, string][] = [
    ['Records items', '/collections/{collectionId}/items'],
    ['STAC search', '/search'],
  ];
  for (const [label, documentPath] of routes) {
    it(`${label} GET: every documented parameter, bad values, same status and code`, async () => {
      const url = documentPath === '/search' ? `${ROOT}/search` : ITEMS;
      const names = parameterNames(documentPath);
      expect(names.length).to.be.greaterThan(documentPath === '/search' ? 10 : 30);
      const differences: string[] = [];
      let refused = 0;
      for (const name of [...names, 'bogus']) {
        for (const value of QUERY_VALUES) {
          const target = `${url}?${new URLSearchParams({ [name]: value }).toString()}`;
          const before = answer(await request(validated).get(target));
          const now = answer(await request(test.app).get(target));
          if (before.status === 400) refused += 1;
          if (before.status !== now.status || before.code !== now.code) {
            differences.push(
              `${name}=${value}: ${JSON.stringify(before)} → ${JSON.stringify(now)}`,
            );
          }
        }
      }
      expect(differences, differences.join('\n')).to.deep.equal([]);
      expect(refused).to.be.greaterThan(50);
    });
  }

  it('STAC search POST: every body member, bad values, same status and code', async () => {
    const schema = defined(
      (document.components?.schemas as Record<string, { properties?: object }>).StacSearch,
      'the StacSearch schema',
    );
    const members = Object.keys(schema.properties ?? {});
    expect(members.length).to.be.greaterThan(10);
    const differences: string[] = [];
    let refused = 0;
    for (const member of [...members, 'bogus']) {
      for (const value of BODY_VALUES) {
        const body = { [member]: value };
        const before = answer(await request(validated).post(`${ROOT}/search`).send(body));
        const now = answer(await request(test.app).post(`${ROOT}/search`).send(body));
        if (before.status === 400) refused += 1;
        if (before.status !== now.status || before.code !== now.code) {
          differences.push(
            `${JSON.stringify(body)}: ${JSON.stringify(before)} → ${JSON.stringify(now)}`,
          );
        }
      }
    }
    for (const body of ['[]', '"x"', '1', 'null']) {
      const send = (app: Express) =>
        request(app).post(`${ROOT}/search`).set('content-type', 'application/json').send(body);
      const before = answer(await send(validated));
      const now = answer(await send(test.app));
      if (before.status !== now.status || before.code !== now.code) {
        differences.push(`${body}: ${JSON.stringify(before)} → ${JSON.stringify(now)}`);
      }
    }
    expect(differences, differences.join('\n')).to.deep.equal([]);
    expect(refused).to.be.greaterThan(50);
  });
});
