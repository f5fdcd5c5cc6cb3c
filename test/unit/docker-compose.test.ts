import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { REPO_ROOT } from '../support/fixtures.js';

interface ComposeService {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  healthcheck?: { test: unknown };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, ComposeService>;
};
const scriptDefault = (file: string, variable: string): string => {
  const match = new RegExp(`${variable}="\\$\\{${variable}:-([^}]+)\\}"`).exec(
    readFileSync(join(REPO_ROOT, 'scripts', 'services', file), 'utf8'),
  );
  if (!match) throw new Error(`${variable} default not found in scripts/services/${file}`);
  return match[1];
};

describe('docker-compose.yml (the scaled deployment for users with Docker)', () => {
  it('runs Elasticsearch, Redis, Keycloak, the API and the worker', () => {
    expect(Object.keys(compose.services).sort()).to.deep.equal([
      'api',
      'elasticsearch',
      'keycloak',
      'redis',
      'worker',
    ]);
  });

  it('gives every long-running dependency and the API a health check', () => {
    for (const name of ['elasticsearch', 'redis', 'keycloak', 'api']) {
      expect(compose.services[name].healthcheck, name).to.have.property('test');
    }
    for (const dependency of ['elasticsearch', 'redis', 'keycloak']) {
      expect(compose.services.api.depends_on?.[dependency]?.condition).to.equal('service_healthy');
    }
  });

  it('uses the engine and identity-provider versions the test scripts install', () => {
    expect(compose.services.elasticsearch.image).to.match(
      new RegExp(`:${scriptDefault('search.sh', 'ES_VERSION')}$`),
    );
    expect(compose.services.keycloak.image).to.match(
      new RegExp(`:${scriptDefault('keycloak.sh', 'KEYCLOAK_VERSION')}$`),
    );
  });

  it('configures the API and the worker for scaled mode with shape indexing', () => {
    for (const name of ['api', 'worker']) {
      const environment = compose.services[name].environment ?? {};
      expect(environment.ELASTICSEARCH_URL, name).to.match(/^http:\/\/elasticsearch:9200$/);
      expect(environment.REDIS_URL, name).to.match(/^redis:\/\/redis:6379$/);
      expect(environment.SEARCH_SPATIAL_MODE, name).to.equal('shape');
    }
  });
});
