/**
 * The protocol modules assembled (services/api/registry/protocols.ts): the OpenAPI document
 * holds every protocol's paths, tags, schemas and parameters and nothing else, each once, and
 * every reference in it resolves; /conformance is the union of the modules' classes, each
 * once; the routers are mounted stage by stage, STAC before Records, and the OWS error renderer
 * covers CSW and OpenSearch. The assembly functions are also shown to refuse what would
 * silently drop or misplace a protocol's part.
 */
import { expect } from 'chai';
import type { Request } from 'express';
import { loadConfig } from '../../shared/config/index.js';
import {
  assembleDocument,
  buildOpenApiDocument,
  buildValidationDocument,
  mergeParts,
  type OpenApiOptions,
} from '../../services/api/openapi/document.js';
import { MOUNT_STAGES, type Protocol } from '../../services/api/protocols/protocol.js';
import {
  presentConformance,
  RECORDS_CONFORMANCE_CLASSES,
} from '../../services/api/protocols/records/capabilities.js';
import { STAC_CONFORMANCE_CLASSES } from '../../services/api/protocols/stac/capabilities.js';
import {
  assembleConformance,
  assembleTags,
  CONFORMANCE_CLASSES,
  errorRenderers,
  MOUNT_ORDER,
  orderMounts,
  PROTOCOLS,
} from '../../services/api/registry/protocols.js';
import { defined } from '../support/defined.js';

const config = loadConfig({ LOG_LEVEL: 'silent' });
const options: OpenApiOptions = {
  serverUrl: '/catalogue',
  rootUrl: '/',
  service: config.service,
  version: '0.0.0',
  limits: config.limits,
};
const served = buildOpenApiDocument(options);
const validation = buildValidationDocument(options);
const part = { rootUrl: '/', limits: config.limits };

/** A protocol with only the members a test needs. */
function fakeProtocol(name: string, extra: Partial<Protocol> = {}): Protocol {
  return {
    name,
    mounts: [],
    openapi: { tags: [], validated: true, paths: () => ({}) },
    conformance: [],
    ...extra,
  };
}

/** Every `$ref` in a JSON value. */
function references(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(references);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, member]) =>
    key === '$ref' && typeof member === 'string' ? [member] : references(member),
  );
}

describe('protocol modules: the OpenAPI document', () => {
  it('holds every protocol’s paths, as the protocol gives them, and no others', () => {
    const expected: string[] = [];
    for (const protocol of PROTOCOLS) {
      const paths = protocol.openapi.paths({ purpose: 'served', ...part });
      expect(Object.keys(paths).length, protocol.name).to.be.greaterThan(0);
      for (const [path, item] of Object.entries(paths)) {
        expect(served.paths[path], `${protocol.name} ${path}`).to.deep.equal(item);
        expected.push(path);
      }
    }
    expect(Object.keys(served.paths)).to.deep.equal(expected);
  });

  it('validates requests against the paths of the validated protocols only', () => {
    const expected: string[] = [];
    for (const protocol of PROTOCOLS) {
      const paths = Object.keys(protocol.openapi.paths({ purpose: 'validation', ...part }));
      if (protocol.openapi.validated) expected.push(...paths);
      else for (const path of paths) expect(validation.paths, path).to.not.have.property(path);
    }
    expect(Object.keys(validation.paths)).to.deep.equal(expected);
    expect(Object.keys(validation.paths)).to.include.members(['/search', '/collections']);
    expect(validation.paths).to.not.have.property('/csw');
  });

  it('declares every tag an operation uses, each once, in protocol order', () => {
    const names = (served.tags ?? []).map((tag) => tag.name);
    expect(new Set(names).size).to.equal(names.length);
    expect(names).to.deep.equal([
      'OGC API – Records',
      'STAC API',
      'CSW and OpenSearch',
      'OAI-PMH',
      'Writes and admin',
      'Operations',
      'Web crawlers',
    ]);
    const used = Object.values(served.paths).flatMap((item) =>
      ['get', 'post', 'put', 'delete'].flatMap(
        (method) => (item as Record<string, { tags?: string[] }>)[method]?.tags ?? [],
      ),
    );
    expect(names).to.include.members([...new Set(used)]);
    for (const name of names) expect(used, name).to.include(name);
  });

  it('holds every protocol’s schemas and parameters, and every reference resolves', () => {
    const components = served.components as Record<string, Record<string, unknown>>;
    for (const protocol of PROTOCOLS) {
      const schemas = protocol.openapi.schemas?.() ?? {};
      const parameters = protocol.openapi.parameters?.({ purpose: 'served', ...part }) ?? {};
      for (const name of Object.keys(schemas)) expect(components.schemas).to.have.property(name);
      for (const name of Object.keys(parameters))
        expect(components.parameters).to.have.property(name);
    }
    for (const document of [served, validation]) {
      for (const target of new Set(references(document))) {
        const [, kind, name] = defined(
          /^#\/components\/(\w+)\/(.+)$/.exec(target),
          `a components reference: ${target}`,
        );
        expect(
          (document.components as Record<string, object>)[defined(kind, `the kind of ${target}`)],
          target,
        ).to.have.property(defined(name, `the name of ${target}`));
      }
    }
  });

  it('refuses two protocols giving the same path, schema or parameter', () => {
    expect(() =>
      mergeParts('path', [
        ['a', { '/x': 1 }],
        ['b', { '/y': 2 }],
      ]),
    ).to.not.throw();
    expect(() =>
      mergeParts('path', [
        ['a', { '/x': 1 }],
        ['b', { '/x': 2 }],
      ]),
    ).to.throw('OpenAPI path "/x" is given by both a and b');
    const twice = fakeProtocol('twice', {
      openapi: { tags: [], validated: true, paths: () => ({ '/search': {} }) },
    });
    expect(() => assembleDocument(options, 'served', [...PROTOCOLS, twice])).to.throw(
      'OpenAPI path "/search" is given by both stac and twice',
    );
    const schema = fakeProtocol('schema', {
      openapi: { tags: [], validated: true, paths: () => ({}), schemas: () => ({ Link: {} }) },
    });
    expect(() => assembleDocument(options, 'served', [...PROTOCOLS, schema])).to.throw(
      'OpenAPI schema "Link" is given by both common and schema',
    );
  });

  it('refuses one tag with two descriptions', () => {
    const tag = (description: string): Protocol =>
      fakeProtocol(description, {
        openapi: { tags: [{ name: 'T', description }], validated: true, paths: () => ({}) },
      });
    expect(assembleTags([tag('one'), tag('one')])).to.deep.equal([
      { name: 'T', description: 'one' },
    ]);
    expect(() => assembleTags([tag('one'), tag('two')])).to.throw('two descriptions');
  });
});

describe('protocol modules: conformance', () => {
  it('declares the union of the modules’ classes, each once, in protocol order', () => {
    const union = PROTOCOLS.flatMap((protocol) => protocol.conformance);
    expect(union.length).to.be.greaterThan(CONFORMANCE_CLASSES.length); // CQL2 classes shared
    expect(new Set(CONFORMANCE_CLASSES).size).to.equal(CONFORMANCE_CLASSES.length);
    expect([...CONFORMANCE_CLASSES].sort()).to.deep.equal([...new Set(union)].sort());
    expect(CONFORMANCE_CLASSES.slice(0, RECORDS_CONFORMANCE_CLASSES.length)).to.deep.equal(
      RECORDS_CONFORMANCE_CLASSES,
    );
    expect(CONFORMANCE_CLASSES).to.include.members(STAC_CONFORMANCE_CLASSES);
    expect(presentConformance(CONFORMANCE_CLASSES).conformsTo).to.equal(CONFORMANCE_CLASSES);
  });

  it('keeps the first of repeated classes', () => {
    const a = fakeProtocol('a', { conformance: ['x', 'y'] });
    const b = fakeProtocol('b', { conformance: ['y', 'z', 'x'] });
    expect(assembleConformance([a, b])).to.deep.equal(['x', 'y', 'z']);
    expect(assembleConformance([b, a])).to.deep.equal(['y', 'z', 'x']);
  });
});

describe('protocol modules: mounting', () => {
  const mounts = orderMounts();
  const at = (protocol: string, stage: string): number =>
    mounts.findIndex((mount) => mount.protocol === protocol && mount.stage === stage);

  it('names every protocol once in MOUNT_ORDER, and each module once in PROTOCOLS', () => {
    const names = PROTOCOLS.map((protocol) => protocol.name);
    expect(new Set(names).size).to.equal(names.length);
    expect([...MOUNT_ORDER].sort()).to.deep.equal([...names].sort());
  });

  it('mounts stage by stage, in the order of MOUNT_STAGES', () => {
    const stages = mounts.map((mount) => MOUNT_STAGES.indexOf(mount.stage));
    expect(stages).to.deep.equal([...stages].sort((a, b) => a - b));
    expect(mounts.length).to.equal(PROTOCOLS.flatMap((protocol) => protocol.mounts).length);
  });

  it('mounts CSW, OpenSearch, OAI-PMH, STAC, then Records for reads, the sitemaps last', () => {
    expect(
      mounts.filter((mount) => mount.stage === 'reads').map((mount) => mount.protocol),
    ).to.deep.equal(['csw', 'opensearch', 'oai', 'stac', 'records', 'web']);
    expect(at('stac', 'reads')).to.be.lessThan(at('records', 'reads'));
  });

  it('puts the writes before the admin routers, both before the reads', () => {
    expect(at('records', 'writes')).to.equal(0);
    expect(at('records', 'writes')).to.be.lessThan(at('admin', 'admin'));
    expect(at('admin', 'admin')).to.be.lessThan(at('admin', 'open'));
    expect(at('admin', 'open')).to.be.lessThan(at('csw', 'reads'));
  });

  it('lets the searches skip the writes and admin routers', () => {
    const request = (method: string, path: string) => ({ method, path }) as Request;
    const writes = defined(mounts[at('records', 'writes')], 'the records writes mount');
    expect(writes.when?.(request('GET', '/search'))).to.equal(false);
    expect(writes.when?.(request('POST', '/search'))).to.equal(true);
    for (const mount of mounts.filter((candidate) => candidate.stage === 'admin')) {
      expect(mount.when?.(request('GET', '/search'))).to.equal(false);
      expect(mount.when?.(request('GET', '/admin/jobs'))).to.equal(true);
    }
  });

  it('refuses a protocol with no place in the mount order', () => {
    expect(() => orderMounts([...PROTOCOLS, fakeProtocol('oai-pmh')])).to.throw(
      'Protocol oai-pmh has no place in MOUNT_ORDER',
    );
    const later = fakeProtocol('later', {
      mounts: [{ stage: 'reads', path: '/catalogue/later', create: () => () => undefined }],
    });
    const ordered = orderMounts([...PROTOCOLS, later], ['later', ...MOUNT_ORDER]);
    expect(ordered.find((mount) => mount.stage === 'reads')?.protocol).to.equal('later');
  });

  it('renders CSW and OpenSearch errors as OWS ExceptionReports, on their mount paths', () => {
    const renderers = errorRenderers();
    expect(renderers).to.have.length(1);
    const cswAndOpenSearch = PROTOCOLS.filter((protocol) =>
      ['csw', 'opensearch'].includes(protocol.name),
    ).flatMap((protocol) => protocol.mounts.map((mount) => mount.path));
    const [renderer] = renderers;
    expect(defined(renderer, 'an error renderer').paths).to.deep.equal([
      '/catalogue/csw',
      '/catalogue/opensearch',
    ]);
    expect(defined(renderer, 'an error renderer').paths).to.include.members(cswAndOpenSearch);
  });
});
