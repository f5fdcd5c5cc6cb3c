import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../../support/fixtures.js';

// Keycloak imports the test realm into its database at the first start of a fresh machine;
// a value longer than its column refuses the whole import and Keycloak does not start.
// Columns of 255 characters in Keycloak 26 (CLIENT, CLIENT_SCOPE, KEYCLOAK_ROLE, REALM).
const LIMITED = new Set(['name', 'description', 'clientId', 'displayName']);
const COLUMN_LIMIT = 255;

function longValues(node: unknown, path: string, found: string[]): string[] {
  if (Array.isArray(node)) node.forEach((item, i) => longValues(item, `${path}[${i}]`, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === 'string' && LIMITED.has(key) && value.length > COLUMN_LIMIT)
        found.push(`${path}.${key} (${value.length} characters)`);
      else longValues(value, `${path}.${key}`, found);
    }
  }
  return found;
}

describe('Keycloak test realm fixture', () => {
  const file = join(REPO_ROOT, 'test', 'fixtures', 'keycloak', 'cairn-test-realm.json');
  const realm = JSON.parse(readFileSync(file, 'utf8')) as unknown;

  it('fits every name and description into Keycloak’s 255-character columns', () => {
    expect(longValues(realm, 'realm', [])).to.deep.equal([]);
  });

  it('finds a value that would not fit (the check itself works)', () => {
    const tooLong = { clients: [{ clientId: 'x', description: 'd'.repeat(COLUMN_LIMIT + 1) }] };
    expect(longValues(tooLong, 'realm', [])).to.deep.equal([
      'realm.clients[0].description (256 characters)',
    ]);
  });
});
