/**
 * The linter guards the seams (eslint.config.js): a service file that imports a concrete
 * backend, or the other service, is an error with a message saying what to use instead, and the
 * way the code reaches backends today passes. A cast to CheckedFilter outside the checker is an
 * error too.
 */
import { expect } from 'chai';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { REPO_ROOT } from '../support/fixtures.js';
import { defined } from '../support/defined.js';

describe('lint rules that guard the seams', function () {
  this.timeout(60_000);
  // The snippets are linted at paths no file has, which the type-aware rules cannot load into
  // the program; the seams are syntax rules, so these runs leave the type-aware ones out.
  const eslint = new ESLint({
    cwd: REPO_ROOT,
    overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked }],
  });

  /** The no-restricted-imports messages for `code` linted as if it were at `file`. */
  async function seamErrors(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: `${REPO_ROOT}/${file}` });
    return defined(result, 'a lint result')
      .messages.filter((message) => message.ruleId === 'no-restricted-imports')
      .map((message) => message.message);
  }

  it('refuses a concrete backend in a protocol, with the way round it', async () => {
    const errors = await seamErrors(
      'services/api/protocols/records/probe.ts',
      "import { SqliteBackend } from '../../../../shared/search/sqlite/sqlite-backend.js';\nexport const probe = SqliteBackend;\n",
    );
    expect(errors).to.have.length(1);
    expect(errors[0]).to.match(/SearchBackend interface/);
  });

  it('refuses an engine class in the worker, and each service in the other', async () => {
    expect(
      await seamErrors(
        'services/worker/jobs/probe.ts',
        "import { EngineBackend } from '../../../shared/search/engine/engine-backend.js';\nexport const probe = EngineBackend;\n",
      ),
    ).to.have.length(1);
    expect(
      await seamErrors(
        'services/worker/jobs/probe.ts',
        "import { createApp } from '../../api/app.js';\nexport const probe = createApp;\n",
      ),
    ).to.have.length(1);
    const crossing = await seamErrors(
      'services/api/protocols/admin/probe.ts',
      "import { startWorkers } from '../../../../services/worker/start-workers.js';\nexport const probe = startWorkers;\n",
    );
    expect(crossing).to.have.length(1);
    expect(crossing[0]).to.match(/share code through shared/);
  });

  it('keeps the two backends apart, in both directions', async () => {
    const engine = await seamErrors(
      'shared/search/engine/probe.ts',
      "import { matchesLike } from '../sqlite/sql-functions.js';\nexport const probe = matchesLike;\n",
    );
    expect(engine).to.have.length(1);
    expect(engine[0]).to.match(/never import each other/);
    expect(
      await seamErrors(
        'shared/search/sqlite/probe.ts',
        "import { EngineBackend } from '../engine/engine-backend.js';\nexport const probe = EngineBackend;\n",
      ),
    ).to.have.length(1);
    expect(
      await seamErrors(
        'shared/search/engine/probe.ts',
        "import { matchesLike } from '../../query/cql2-functions.js';\nexport const probe = matchesLike;\n",
      ),
    ).to.deep.equal([]);
  });

  it('keeps concrete backends inside shared/search, but for the ingest fast path', async () => {
    const harvest = await seamErrors(
      'shared/harvest/probe.ts',
      "import { openDatabase } from '../search/sqlite/open-database.js';\nexport const probe = openDatabase;\n",
    );
    expect(harvest).to.have.length(1);
    expect(harvest[0]).to.match(/open-stores/);
    expect(
      await seamErrors(
        'shared/ingest/probe.ts',
        "import { EngineBackend } from '../search/engine/engine-backend.js';\nexport const probe = EngineBackend;\n",
      ),
    ).to.have.length(1);
    expect(
      await seamErrors(
        'shared/harvest/probe.ts',
        "import { openEmbeddedHarvestStore } from '../search/open-stores.js';\nexport const probe = openEmbeddedHarvestStore;\n",
      ),
    ).to.deep.equal([]);
  });

  it('lets services use the interface, its capabilities and the factories', async () => {
    expect(
      await seamErrors(
        'services/api/protocols/csw/probe.ts',
        [
          "import type { SearchBackend } from '../../../../shared/search/backend.js';",
          "import { createBackend } from '../../../../shared/search/create-backend.js';",
          "import { openScratchBackend } from '../../../../shared/search/scratch-backend.js';",
          'export const probe = [createBackend, openScratchBackend] as unknown as SearchBackend;',
          '',
        ].join('\n'),
      ),
    ).to.deep.equal([]);
  });

  it('refuses a cast to CheckedFilter anywhere but in the checker', async () => {
    /** The no-restricted-syntax messages for `code` linted as if it were at `file`. */
    const castErrors = async (file: string, code: string): Promise<string[]> => {
      const [result] = await eslint.lintText(code, { filePath: `${REPO_ROOT}/${file}` });
      return defined(result, 'a lint result')
        .messages.filter((message) => message.ruleId === 'no-restricted-syntax')
        .map((message) => message.message);
    };
    const casts = [
      "import type { CheckedFilter } from '../../query/checked-filter.js';",
      'export const a = {} as CheckedFilter;',
      'export const b = {} as unknown as CheckedFilter | undefined;',
      'export const c = [] as CheckedFilter[];',
      '',
    ].join('\n');
    const errors = await castErrors('shared/search/engine/probe.ts', casts);
    expect(errors).to.have.length(3);
    expect(errors[0]).to.match(/checkFilter or andChecked/);
    expect(await castErrors('test/unit/probe.ts', casts)).to.have.length(3);
    expect(await castErrors('shared/query/check-filter.ts', casts)).to.deep.equal([]);
  });

  it('keeps services/api/common and commands below the protocols, pages and middleware', async () => {
    const upward = await seamErrors(
      'services/api/commands/probe.ts',
      "import { COLLECTION_ID } from '../protocols/records/present.js';\nexport const probe = COLLECTION_ID;\n",
    );
    expect(upward).to.have.length(1);
    expect(upward[0]).to.match(/sit below the protocols/);
    expect(
      await seamErrors(
        'services/api/common/probe.ts',
        "import { wantsHtml } from '../html/errors.js';\nexport const probe = wantsHtml;\n",
      ),
    ).to.have.length(1);
    expect(
      await seamErrors(
        'services/api/common/probe.ts',
        "import { createApp } from '../app.js';\nexport const probe = createApp;\n",
      ),
    ).to.have.length(1);
    expect(
      await seamErrors(
        'services/api/common/probe.ts',
        "import { PROTOCOLS } from '../registry/protocols.js';\nexport const probe = PROTOCOLS;\n",
      ),
    ).to.have.length(1);
    expect(
      await seamErrors(
        'services/api/commands/probe.ts',
        [
          "import { jobUrl } from '../common/urls.js';",
          "import type { SearchBackend } from '../../../shared/search/backend.js';",
          'export const probe = [jobUrl] as unknown as SearchBackend;',
          '',
        ].join('\n'),
      ),
    ).to.deep.equal([]);
  });
});
