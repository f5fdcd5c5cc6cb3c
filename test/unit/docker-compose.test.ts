/**
 * docker-compose.yml (no Docker engine runs here, so the file is checked as text): its two
 * profiles against the scripts (engine versions, the API and worker commands, the variables
 * shared/config reads), its health checks and loopback-only ports, the HAProxy file of the
 * scaled profile, and the saved views imported into Dashboards/Kibana against the mappings.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { loadConfig } from '../../shared/config/index.js';
import { createEngineBackend } from '../../shared/search/create-backend.js';
import { describeImportFailure } from '../../scripts/import-saved-objects.js';
import { defined } from '../support/defined.js';
import { REPO_ROOT } from '../support/fixtures.js';

interface ComposeService {
  image?: string;
  build?: string;
  profiles?: string[];
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: unknown };
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
}

const read = (file: string): string => readFileSync(join(REPO_ROOT, file), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const services = compose.services;
const service = (name: string): ComposeService => defined(services[name], `service ${name}`);
const scriptDefault = (file: string, variable: string): string => {
  const value = new RegExp(`${variable}="\\$\\{${variable}:-([^}]+)\\}"`).exec(
    read(`scripts/services/${file}`),
  )?.[1];
  if (value === undefined)
    throw new Error(`${variable} default not found in scripts/services/${file}`);
  return value;
};
const inProfile = (profile: string): string[] =>
  Object.keys(services)
    .filter((name) => service(name).profiles?.includes(profile))
    .sort();
const isApi = (name: string): boolean =>
  service(name).command?.includes('dist/services/api/main.js') ?? false;
const isWorker = (name: string): boolean =>
  service(name).command?.includes('dist/services/worker/main.js') ?? false;
const cairnServices = Object.keys(services).filter((name) => isApi(name) || isWorker(name));
const oneShot = (name: string): boolean => service(name).restart === 'no';

/** The field paths a mapping declares, multi-fields included (`props.title.keyword`). */
function mappedFields(properties: Record<string, MappingField>, prefix = ''): string[] {
  return Object.entries(properties).flatMap(([name, field]) => [
    `${prefix}${name}`,
    ...Object.keys(field.fields ?? {}).map((sub) => `${prefix}${name}.${sub}`),
    ...mappedFields(field.properties ?? {}, `${prefix}${name}.`),
  ]);
}
interface MappingField {
  properties?: Record<string, MappingField>;
  fields?: Record<string, unknown>;
}
const mappingProperties = (file: string): Record<string, MappingField> =>
  (JSON.parse(read(`es-mappings/${file}`)) as { template: { mappings: MappingField } }).template
    .mappings.properties ?? {};

describe('docker-compose.yml (the deployments for users with Docker)', () => {
  it('has a single-node profile, a scaled profile, and Redis and Keycloak for both', () => {
    expect(inProfile('single')).to.deep.equal([
      'api',
      'elasticsearch',
      'kibana',
      'kibana-setup',
      'worker',
    ]);
    expect(inProfile('scaled')).to.deep.equal([
      'api-1',
      'api-2',
      'dashboards',
      'dashboards-setup',
      'lb',
      'opensearch-1',
      'opensearch-2',
      'opensearch-3',
      'worker-1',
      'worker-2',
    ]);
    const shared = Object.keys(services).filter((name) => !service(name).profiles);
    expect(shared.sort()).to.deep.equal(['keycloak', 'redis']);
  });

  it('gives every long-running service a health check, and starts Cairn on healthy ones', () => {
    for (const name of Object.keys(services).filter((service) => !oneShot(service)))
      expect(service(name).healthcheck, name).to.have.property('test');
    for (const name of [...cairnServices, 'lb', 'kibana-setup', 'dashboards-setup']) {
      const dependencies = Object.entries(service(name).depends_on ?? {});
      expect(dependencies.length, name).to.be.greaterThan(0);
      for (const [dependency, { condition }] of dependencies) {
        expect(services[dependency], `${name} → ${dependency}`).to.not.equal(undefined);
        // The balancer needs the APIs to exist (it resolves their names), not to be ready.
        const startedIsEnough = name === 'lb' && isApi(dependency);
        expect(condition, `${name} → ${dependency}`).to.equal(
          startedIsEnough ? 'service_started' : 'service_healthy',
        );
      }
    }
  });

  it('publishes ports on loopback only', () => {
    for (const [name, service] of Object.entries(services))
      for (const port of service.ports ?? []) expect(port, name).to.match(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it('uses the engine, dashboard and identity-provider versions the test scripts install', () => {
    const es = scriptDefault('search.sh', 'ES_VERSION');
    const opensearch = scriptDefault('search.sh', 'OPENSEARCH_VERSION');
    expect(service('elasticsearch').image).to.equal(`elasticsearch:${es}`);
    expect(service('kibana').image).to.equal(`kibana:${es}`);
    for (const node of ['opensearch-1', 'opensearch-2', 'opensearch-3'])
      expect(service(node).image, node).to.equal(`opensearchproject/opensearch:${opensearch}`);
    expect(service('dashboards').image).to.equal(
      `opensearchproject/opensearch-dashboards:${opensearch}`,
    );
    expect(service('keycloak').image).to.match(
      new RegExp(`:${scriptDefault('keycloak.sh', 'KEYCLOAK_VERSION')}$`),
    );
  });

  it('runs the API and the worker with the commands of package.json', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> })
      .scripts;
    const lastCommand = (script: string): string[] =>
      script.split('&&').at(-1)!.trim().split(/\s+/);
    expect(lastCommand(defined(scripts.start, 'npm start'))).to.deep.equal(service('api').command);
    expect(lastCommand(defined(scripts.worker, 'npm run worker'))).to.deep.equal(
      service('worker').command,
    );
    expect(cairnServices.filter(isApi).sort()).to.deep.equal(['api', 'api-1', 'api-2']);
    expect(cairnServices.filter(isWorker).sort()).to.deep.equal(['worker', 'worker-1', 'worker-2']);
    for (const name of cairnServices.filter(isApi))
      expect(service(name).command, name).to.deep.equal(service('api').command);
    for (const name of cairnServices.filter(isWorker))
      expect(service(name).command, name).to.deep.equal(service('worker').command);
  });

  it('sets only variables that shared/config reads and documents, with valid values', () => {
    const envExample = read('.env.example');
    const configurationDoc = read('docs/configuration.md');
    for (const name of cairnServices) {
      const environment = service(name).environment ?? {};
      for (const variable of Object.keys(environment)) {
        expect(envExample, `${name}: ${variable} in .env.example`).to.match(
          new RegExp(`^(# ?)?${variable}=`, 'm'),
        );
        expect(configurationDoc, `${name}: ${variable} in docs/configuration.md`).to.include(
          `| \`${variable}\``,
        );
      }
      expect(() => loadConfig(environment), name).to.not.throw();
    }
  });

  it('configures the single profile on Elasticsearch and the scaled one on the OpenSearch cluster', () => {
    for (const name of ['api', 'worker']) {
      const environment = service(name).environment ?? {};
      expect(environment.ELASTICSEARCH_URL, name).to.equal('http://elasticsearch:9200');
      expect(environment.SEARCH_SPATIAL_MODE, name).to.equal('shape');
      expect(environment.REDIS_URL, name).to.equal('redis://redis:6379');
    }
    for (const name of ['api-1', 'api-2', 'worker-1', 'worker-2']) {
      const environment = service(name).environment ?? {};
      expect(environment.OPENSEARCH_URL, name).to.equal('http://lb:9200');
      expect(environment.SEARCH_REPLICAS, name).to.equal('1');
      expect(environment.SEARCH_SPATIAL_MODE, name).to.equal('shape');
      expect(environment.REDIS_URL, name).to.equal('redis://redis:6379');
      // The profiles share Redis: their queues must not be each other's.
      expect(environment.WORKER_QUEUE_PREFIX, name).to.not.equal(
        service('worker').environment?.WORKER_QUEUE_PREFIX,
      );
      // Nothing on local disk in scaled mode: no volume for an API or a worker.
      expect(service(name).volumes, name).to.equal(undefined);
    }
    const nodes = ['opensearch-1', 'opensearch-2', 'opensearch-3'];
    for (const node of nodes) {
      const environment = service(node).environment ?? {};
      expect(environment['node.name']).to.equal(node);
      expect(environment['discovery.seed_hosts']).to.equal(nodes.join(','));
      expect(environment['cluster.initial_cluster_manager_nodes']).to.equal(nodes.join(','));
    }
  });

  it('balances the scaled APIs and engine nodes round-robin, without stickiness', () => {
    // The cluster check's HAProxy file, its addresses taken from the lb service's environment.
    const [folder = '', target] = (service('lb').volumes?.[0] ?? '')
      .replace(/^\.\//, '')
      .split(':');
    expect(target).to.equal('/usr/local/etc/haproxy');
    const environment = service('lb').environment ?? {};
    const config = read(`${folder}/haproxy.cfg`).replace(
      /"\$\{(\w+)\}"/g,
      (_text, name: string) => {
        expect(environment, `lb sets ${name}`).to.have.property(name);
        return defined(environment[name], `lb variable ${name}`);
      },
    );
    expect(existsSync(join(REPO_ROOT, folder, 'errors/503.http'))).to.equal(true);
    expect(environment.CAIRN_LB_ERRORS).to.equal(`${target}/errors`);
    const section = (kind: string, name: string): string =>
      new RegExp(`^${kind} ${name}\\n((?:[ \\t]+.*\\n?)*)`, 'm').exec(config)?.[1] ?? '';
    const servers = (name: string): string[] =>
      [...section('backend', name).matchAll(/^\s+server \S+ (\S+)/gm)].map(([, server]) =>
        defined(server, 'server address'),
      );
    const frontendBackend = (bind: string | undefined): string => {
      const frontend = /^frontend (\S+)\n((?:[ \t]+.*\n?)*)/gm;
      for (const [, , body] of config.matchAll(frontend))
        if (body?.includes(`bind ${bind}\n`)) return /default_backend (\S+)/.exec(body)?.[1] ?? '';
      return '';
    };
    const apiBackend = frontendBackend(environment.CAIRN_LB_BIND);
    const engineBackend = frontendBackend(environment.CAIRN_LB_ENGINE_BIND);
    const port = (name: string): string => service(name).environment?.PORT ?? '9200';
    expect(servers(apiBackend)).to.deep.equal(['api-1', 'api-2'].map((n) => `${n}:${port(n)}`));
    expect(servers(engineBackend)).to.deep.equal(
      ['opensearch-1', 'opensearch-2', 'opensearch-3'].map((node) => `${node}:9200`),
    );
    for (const name of [apiBackend, engineBackend]) {
      expect(section('backend', name), name).to.match(/^\s+balance roundrobin$/m);
      expect(section('backend', name), name).to.match(/^\s+option httpchk /m);
    }
    expect(config).to.not.match(/^\s*(cookie|stick|balance source|hash-type)\b/m);
    // The APIs reach the engine through the balancer; the published port is the API frontend,
    // and the links the APIs write name it.
    expect(environment.CAIRN_LB_ENGINE_BIND).to.equal(':9200');
    const [, hostPort, containerPort] = service('lb').ports?.[0]?.split(':') ?? [];
    expect(environment.CAIRN_LB_BIND).to.equal(`:${containerPort}`);
    expect(service('api-1').environment?.PUBLIC_BASE_URL).to.equal(`http://127.0.0.1:${hostPort}`);
    // HAProxy resolves the service names when it starts: it starts after them.
    for (const name of ['api-1', 'api-2', 'opensearch-1', 'opensearch-2', 'opensearch-3'])
      expect(service('lb').depends_on, name).to.have.property(name);
  });

  describe('saved views for Kibana and OpenSearch Dashboards', () => {
    interface SavedObject {
      id: string;
      type: string;
      attributes: {
        title: string;
        timeFieldName?: string;
        columns?: string[];
        sort?: [string, string][];
        kibanaSavedObjectMeta?: { searchSourceJSON: string };
      };
      references: { name: string; type: string; id: string }[];
    }
    const setups = ['kibana-setup', 'dashboards-setup'];
    const argument = (name: string, option: string): string | undefined => {
      const command = service(name).command ?? [];
      return command[command.indexOf(option) + 1];
    };
    const file = defined(argument('dashboards-setup', '--file'), 'the --file argument');
    const objects = read(file)
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as SavedObject);
    const patterns = new Map(
      objects.filter((object) => object.type === 'index-pattern').map((o) => [o.id, o]),
    );
    const searches = objects.filter((object) => object.type === 'search');

    // The index names the scaled APIs use: their alias, and the ingest log named after it.
    const search = loadConfig(service('api-1').environment).search;
    const engine = createEngineBackend({
      engine: 'opensearch',
      url: 'http://127.0.0.1:9',
      ...(search.kind === 'sqlite' ? {} : { alias: search.alias }),
    });
    const { alias, ingestLog } = engine;
    after(() => engine.close());
    const fieldsOf: Record<string, string[]> = {
      [alias]: mappedFields({
        ...mappingProperties('records.base.json'),
        ...mappingProperties('records.shape.json'),
      }),
      [ingestLog]: mappedFields(mappingProperties('ingest-log.json')),
    };

    it('are imported by a one-shot service per dashboard, from the same file', () => {
      expect(argument('kibana-setup', '--url')).to.equal('http://kibana:5601');
      expect(argument('dashboards-setup', '--url')).to.equal('http://dashboards:5601');
      for (const name of setups) {
        expect(argument(name, '--file'), name).to.equal(file);
        expect(service(name).command?.slice(0, 2), name).to.deep.equal([
          'node',
          'dist/scripts/import-saved-objects.js',
        ]);
        expect(existsSync(join(REPO_ROOT, 'scripts/import-saved-objects.ts'))).to.equal(true);
      }
    });

    it('are index patterns on the records alias and the ingest-log index', () => {
      const titles = [...patterns.values()].map((pattern) => pattern.attributes.title).sort();
      expect(titles).to.deep.equal([ingestLog, alias].sort());
      expect(patterns.get(ingestLog)?.attributes.timeFieldName).to.equal('startedAt');
      for (const pattern of patterns.values()) {
        const time = pattern.attributes.timeFieldName;
        if (time) expect(fieldsOf[pattern.attributes.title]).to.include(time);
      }
    });

    it('are saved searches whose index, columns, sort and query fields are all mapped', () => {
      expect(searches.map((search) => search.id)).to.have.members([
        'cairn-records-latest',
        'cairn-ingest-jobs',
        'cairn-ingest-failures',
      ]);
      for (const search of searches) {
        const reference = defined(search.references[0], `${search.id}'s index reference`);
        const source = JSON.parse(search.attributes.kibanaSavedObjectMeta!.searchSourceJSON) as {
          indexRefName: string;
          query: { query: string; language: string };
        };
        expect(source.indexRefName, search.id).to.equal(reference.name);
        const pattern = patterns.get(reference.id);
        expect(pattern, `${search.id} → ${reference.id}`).to.not.equal(undefined);
        const fields = fieldsOf[pattern!.attributes.title];
        const used = [
          ...(search.attributes.columns ?? []),
          ...(search.attributes.sort ?? []).map(([field]) => field),
          ...[...source.query.query.matchAll(/([\w.]+)\s*:/g)].map((match) => match[1]),
        ];
        expect(used.length, search.id).to.be.greaterThan(3);
        for (const field of used) expect(fields, `${search.id}: ${field}`).to.include(field);
      }
      const columns = (id: string): string[] =>
        searches.find((search) => search.id === id)?.attributes.columns ?? [];
      expect(columns('cairn-records-latest')).to.include.members(['id', 'props.title']);
      expect(columns('cairn-ingest-jobs')).to.include.members([
        'jobId',
        'queue',
        'status',
        'error',
      ]);
    });

    it('count as imported only when the API says every object was', () => {
      expect(describeImportFailure(200, { success: true, successCount: 5 })).to.equal(null);
      expect(
        describeImportFailure(200, {
          success: false,
          errors: [{ id: 'x', type: 'search', error: { type: 'missing_references' } }],
        }),
      ).to.equal('import answered 200; search x: missing_references');
      expect(describeImportFailure(400, { message: 'bad file' })).to.equal(
        'import answered 400; bad file',
      );
    });
  });
});
