/**
 * Keeps the documentation honest: the README stays a short front door, every relative link in
 * the README and the docs resolves (file and heading), every `npm run` script they mention
 * exists, the runtime dependencies the README explains are those of package.json, and
 * docs/configuration.md and .env.example name exactly the variables shared/config reads.
 * Each check is also run on a broken example, so that it is known to fail when the docs drift.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../support/fixtures.js';
import { defined } from '../support/defined.js';

const README_MAX_BYTES = 20_000;

/** The pages of docs/ (not its subfolders), relative to the repository. */
const DOCS_PAGES = readdirSync(join(REPO_ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
/** The decision records: one file per decision, indexed by docs/decisions/README.md. */
const DECISIONS_INDEX = 'docs/decisions/README.md';
const DECISION_FILES = readdirSync(join(REPO_ROOT, 'docs/decisions'))
  .filter((name) => name.endsWith('.md') && name !== 'README.md')
  .map((name) => `docs/decisions/${name}`);
/** The Markdown files whose links and commands are checked, relative to the repository. */
const PRIMARY_DOCS = [
  'README.md',
  'bench/README.md',
  ...DOCS_PAGES,
  DECISIONS_INDEX,
  ...DECISION_FILES,
];
/** The primary docs and the READMEs of folders, whose links are checked too. */
const DOC_FILES = [
  ...PRIMARY_DOCS,
  'es-mappings/README.md',
  'shared/search/engine/README.md',
  'shared/xml/README.md',
  'data/samples/README.md',
  'test/fixtures/README.md',
];

const read = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8');

/** Markdown without fenced code blocks and inline code spans (their text is not a link). */
function stripCode(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The first capture group of every match of a global pattern (a group that always takes part). */
function firstGroups(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map(([, group]) => defined(group, `a group of ${pattern}`));
}

/** The targets of inline links and images (`[text](target)`, `![alt](target)`). */
function listLinkTargets(markdown: string): string[] {
  return firstGroups(stripCode(markdown), /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown document offers: its headings' slugs (numbered when repeated) and `<a id>`s. */
function listAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '');
  for (const heading of firstGroups(withoutFences, /^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const anchor of firstGroups(markdown, /<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(anchor);
  return anchors;
}

/**
 * The relative links of a document (at `path`, relative to `root`) that do not resolve: a
 * missing file, or a `#fragment` that is not an anchor of the Markdown file it points to.
 */
function findBrokenLinks(root: string, path: string, markdown: string): string[] {
  const broken: string[] = [];
  for (const target of listLinkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [file = '', fragment] = target.split('#', 2);
    if (file === '') {
      if (!listAnchors(markdown).has(fragment ?? ''))
        broken.push(`${target} (no heading #${fragment})`);
      continue;
    }
    const resolved = resolve(root, dirname(path), file);
    if (relative(root, resolved).startsWith('..')) {
      broken.push(`${target} (outside the repository)`);
      continue;
    }
    if (!existsSync(resolved)) {
      broken.push(`${target} (no such file)`);
      continue;
    }
    if (fragment && resolved.endsWith('.md') && statSync(resolved).isFile()) {
      const anchors = listAnchors(readFileSync(resolved, 'utf8'));
      if (!anchors.has(fragment)) broken.push(`${target} (no heading #${fragment})`);
    }
  }
  return broken;
}

/** Paths such as `../shared/…` in a document (at `path`) that climb out of the repository. */
function findOutsidePaths(root: string, path: string, markdown: string): string[] {
  return [...markdown.matchAll(/((?:\.\.\/)+)[\w.-]+(?:\/[\w.-]+)*/g)]
    .filter(([, climb = '']) =>
      relative(root, resolve(root, dirname(path), climb)).startsWith('..'),
    )
    .map((match) => match[0]);
}

/** Top-level folders whose files are made at run time, not kept in git (except data/samples). */
const RUNTIME_PATHS = /^(?:data\/(?!samples(?:\/|$))|dist\/|node_modules\/)/;

/**
 * The repository paths a document names in code spans (`shared/xml/README.md`,
 * `bench/results/parse-*.json`) that do not exist, from the repository root or the document's
 * folder. A span counts as a path when its first segment is an entry of one of those folders,
 * so that `from/size` or `MI_Instrument/type` are not taken for paths.
 */
function findMissingPaths(root: string, path: string, markdown: string): string[] {
  const missing: string[] = [];
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '');
  for (const name of firstGroups(prose, /`([\w.-]+(?:\/[\w.*-]+)*\/?)`/g)) {
    if (!name.includes('/') || RUNTIME_PATHS.test(name)) continue;
    const bases = [root, resolve(root, dirname(path))].filter((base) =>
      existsSync(join(base, name.replace(/\/.*/s, ''))),
    );
    if (bases.length === 0) continue;
    if (!bases.some((base) => pathExists(join(base, name)))) missing.push(name);
  }
  return missing;
}

/** Whether a path exists; a `*` in any segment matches any characters within that segment. */
function pathExists(path: string): boolean {
  const segments = path.replace(/\/$/, '').split('/');
  const walk = (folder: string, index: number): boolean => {
    const segment = segments[index];
    if (segment === undefined) return true;
    if (!segment.includes('*')) {
      const next = join(folder, segment);
      return existsSync(next) && walk(next, index + 1);
    }
    if (!existsSync(folder) || !statSync(folder).isDirectory()) return false;
    const pattern = new RegExp(`^${segment.split('*').map(escapeRegExp).join('.*')}$`);
    return readdirSync(folder).some(
      (entry) => pattern.test(entry) && walk(join(folder, entry), index + 1),
    );
  };
  return path.startsWith('/') ? walk('/', 1) : walk('.', 0);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The npm scripts a document tells people to run (`npm run x`, `npm start`, `npm test`). */
function listNpmScripts(markdown: string): string[] {
  const names = new Set<string>();
  for (const name of firstGroups(markdown, /\bnpm run(?:-script)? ([a-z][\w:.-]*)/g))
    names.add(name);
  for (const name of firstGroups(markdown, /\bnpm (start|test|stop|restart)\b/g)) names.add(name);
  return [...names].sort();
}

/** The names of the environment variables read by a zod schema source (`  NAME: z…` keys). */
function listSchemaVariables(source: string): string[] {
  return [...new Set(firstGroups(source, /^ {2}([A-Z][A-Z0-9_]*):/gm))].sort();
}

/** The variables a Markdown document lists in the first column of its tables. */
function listTableVariables(markdown: string): string[] {
  const names = new Set<string>();
  for (const line of markdown.split('\n')) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (!cell) continue;
    for (const name of firstGroups(cell, /`([A-Z][A-Z0-9_]*)`/g)) names.add(name);
  }
  return [...names].sort();
}

/** The `NAME=` lines of an env file. */
function listEnvFileVariables(text: string): string[] {
  return [...new Set(firstGroups(text, /^([A-Z][A-Z0-9_]*)=/gm))].sort();
}

/** The packages a README's "Runtime dependencies" table explains. */
function listExplainedDependencies(markdown: string): string[] {
  const section = /^## Runtime dependencies\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown)?.[1];
  return section ? listTableCells(section).sort() : [];
}

function listTableCells(section: string): string[] {
  const names: string[] = [];
  for (const line of section.split('\n')) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (cell) names.push(...firstGroups(cell, /`([^`]+)`/g));
  }
  return names;
}

/** The documents whose code spans must all resolve to the repository as it is. */
const RESOLVED_DOCS = ['docs/architecture.md', 'docs/extending.md'];

/** This file, whose examples of stale names must not count as declarations. */
const DOCS_TEST = 'test/unit/docs.test.ts';
/** Folders whose source is searched for the declarations a document names. */
const SOURCE_FOLDERS = ['services', 'shared', 'scripts', 'test'];
const SOURCE_FILE = /\.(?:ts|mts|mjs|js)$/;
/** Shell scripts, searched only for the environment variables they read. */
const SHELL_FILE = /\.sh$/;
/** File extensions that make a code span a file name (`parse.ts`, `tables-*.md`). */
const FILE_NAME =
  /^[\w.*<>-]*[\w*>-]\.(?:ts|mts|mjs|cjs|js|json|md|sh|ya?ml|njk|cfg|txt|py|xsd|xml|html|png|example)$/;
/** Folders never searched: dependencies, build output, git's own and data made at run time. */
const UNSEARCHED = /^(?:node_modules|dist|\.git|data\/(?!samples(?:\/|$))[^/]*)$/;

/** Every file of the repository, relative to `root` with `/` separators. */
function listRepositoryFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = folder ? `${folder}/${entry.name}` : entry.name;
      if (UNSEARCHED.test(path)) continue;
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk('');
  return files;
}

/** The inline code spans of a Markdown document's prose (fenced blocks left out). */
function listCodeSpans(markdown: string): string[] {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map(([, span]) => defined(span, 'a code span'));
}

/** A glob (`*` within a segment, `<placeholder>` for one name part) as a regular expression. */
function globPattern(glob: string): string {
  return glob
    .split(/(\*|<[^>]+>)/)
    .map((part) => (part === '*' || /^<.+>$/.test(part) ? '[^/]*' : escapeRegExp(part)))
    .join('');
}

/** `a/{b,c}/d` as `a/b/d` and `a/c/d`. */
function expandBraces(path: string): string[] {
  const match = /\{([^{}]+)\}/.exec(path);
  if (!match) return [path];
  return defined(match[1], 'a brace group')
    .split(',')
    .flatMap((choice) => expandBraces(path.replace(match[0], choice.trim())));
}

type SpanKind = 'path' | 'identifier' | 'call' | 'constant' | 'code';

/**
 * What a code span of the architecture and extending pages stands for; the rules:
 * - **code** (not resolved): anything with a space, quote, `=`, `:` or `?` in it (commands,
 *   expressions, `{code, description}`, `f=xml`), HTTP paths (`/catalogue/…`, `…/items`), URLs,
 *   paths under ~ or in data/, dist/, node_modules (made at run time), generated files
 *   (`*.generated.*`), names in lower case (`ingest`, `search_after`, `index.sort.field`: values,
 *   queue names, settings and keywords of other tools) and single capitalised words
 *   (`Dockerfile`, `Accept`).
 * - **path**: a span with a `/` whose first segment is a top-level entry of the repository or
 *   that ends in `/` or a file extension, or a bare file name with an extension (`parse.ts`). It
 *   must exist: from the repository root, or as the tail of a repository path (`sqlite/rows.ts`,
 *   `engine-reads.ts`); `*` matches within a segment, `<name>` stands for any name part and
 *   `{a,b}` for each of its choices.
 * - **identifier**: a camelCase or PascalCase name (an inner capital: `createApp`,
 *   `SearchBackend`, `mediaType`), alone or dotted (`EngineBackend.method`): each such segment
 *   must be declared in services/, shared/, scripts/ or test/ — as a function, class, interface,
 *   type, enum or variable, as a member (a property, method or object key), or imported by name
 *   from a dependency (`UnrecoverableError` from BullMQ).
 * - **call**: `name(…)` or `value.name()`; the called name must be declared as above
 *   (`perform(payload, context)`); on a lower-case value it must at least be called so in the
 *   source (`req.accepts()`).
 * - **constant**: an upper-case name (`JOB_HANDLERS`, `JOBS`): declared as above, or an
 *   environment variable (or a keyword the code quotes, such as `CASEI`) —
 *   documented in docs/configuration.md, named in the source as a string or `process.env.X`,
 *   or read by a shell script (`$X`).
 */
function classifySpan(span: string): SpanKind {
  if (/^[~/…]|:\/\/|^\$/.test(span) || /\.generated\./.test(span)) return 'code';
  if (/^[\w.$]+\([^()]*\)$/.test(span)) return 'call';
  if (/[\s'"=:?,]/.test(span)) return 'code';
  if (span.includes('/')) {
    const first = defined(span.split('/')[0], 'a first path segment');
    if (RUNTIME_PATHS.test(span)) return 'code';
    if (span.endsWith('/') || FILE_NAME.test(span.split('/').pop() ?? '')) return 'path';
    return existsSync(join(REPO_ROOT, first)) ? 'path' : 'code';
  }
  if (FILE_NAME.test(span)) return 'path';
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/.test(span) && span.length > 1) return 'constant';
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(span) && /[a-z0-9][A-Z]/.test(span))
    return 'identifier';
  return 'code';
}

/** The names the source declares, imports from dependencies, calls as members and quotes. */
interface SourceIndex {
  declared: Set<string>;
  memberCalls: Set<string>;
  quoted: Set<string>;
}

/** Reads the source folders' declarations, members, imports and string literals. */
function indexSource(root: string, files: string[]): SourceIndex {
  const index: SourceIndex = { declared: new Set(), memberCalls: new Set(), quoted: new Set() };
  const add = (set: Set<string>, source: string, pattern: RegExp): void => {
    for (const [, name] of source.matchAll(pattern))
      set.add(defined(name, `a group of ${pattern}`));
  };
  for (const file of files) {
    if (!SOURCE_FOLDERS.includes(file.split('/')[0] ?? '')) continue;
    if (SHELL_FILE.test(file)) {
      add(index.quoted, readFileSync(join(root, file), 'utf8'), /\$\{?([A-Z][A-Z0-9_]*)/g);
      continue;
    }
    if (!SOURCE_FILE.test(file) || file.includes('.generated.') || file === DOCS_TEST) continue;
    const source = readFileSync(join(root, file), 'utf8');
    add(
      index.declared,
      source,
      /\b(?:function\*?|class|interface|type|enum|const|let|var)\s+([A-Za-z_$][\w$]*)/g,
    );
    add(
      index.declared,
      source,
      /^\s*(?:(?:export|public|private|protected|static|readonly|abstract|declare|override|async|get|set)\s+)*['"]?([A-Za-z_$][\w$]*)['"]?(?:\??\s*[:=]|\s*[<(][^;]*$)/gm,
    );
    for (const match of source.matchAll(/^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'[^.]/gm))
      for (const name of defined(match[1], 'an import list').split(','))
        index.declared.add(
          defined(name.replace(/^\s*type\s+/, '').split(/\s+as\s+/)[0], 'an imported name').trim(),
        );
    add(index.memberCalls, source, /\.([A-Za-z_$][\w$]*)\(/g);
    add(index.quoted, source, /['"`]([A-Z][A-Z0-9_]*)['"`]/g);
    add(index.quoted, source, /\benv\.([A-Z][A-Z0-9_]*)/g);
  }
  return index;
}

/** Whether a path span names something in the repository (see classifySpan). */
function pathResolves(root: string, files: string[], docPath: string, span: string): boolean {
  return expandBraces(span).every((path) => {
    const plain = path.replace(/<[^>]+>/g, '*');
    if (pathExists(join(root, plain)) || pathExists(join(root, dirname(docPath), plain)))
      return true;
    const folder = path.endsWith('/');
    const pattern = new RegExp(
      `(?:^|/)${globPattern(path.replace(/\/$/, ''))}${folder ? '/' : '$'}`,
    );
    return files.some((file) => pattern.test(file));
  });
}

/** The code spans of a document that do not resolve, each with the rule it broke. */
function findUnresolvedSpans(
  root: string,
  files: string[],
  index: SourceIndex,
  configured: Set<string>,
  docPath: string,
  markdown: string,
): string[] {
  const declared = (name: string): boolean => index.declared.has(name);
  const unresolved: string[] = [];
  for (const span of new Set(listCodeSpans(markdown))) {
    const kind = classifySpan(span);
    if (kind === 'path' && !pathResolves(root, files, docPath, span))
      unresolved.push(`${span} (no such path)`);
    if (kind === 'identifier') {
      const names = span.split('.').filter((name) => /[a-z0-9][A-Z]|^[A-Z]/.test(name));
      const missing = names.filter((name) => !declared(name));
      if (missing.length > 0) unresolved.push(`${span} (not declared: ${missing.join(', ')})`);
    }
    if (kind === 'call') {
      const callee = span.slice(0, span.indexOf('('));
      const name = callee.split('.').pop() ?? callee;
      const found =
        callee.includes('.') && /^[a-z]/.test(callee)
          ? declared(name) || index.memberCalls.has(name)
          : declared(name);
      if (!found) unresolved.push(`${span} (not declared: ${name})`);
    }
    if (kind === 'constant' && !declared(span) && !configured.has(span) && !index.quoted.has(span))
      unresolved.push(`${span} (neither declared nor an environment variable)`);
  }
  return unresolved;
}

interface PackageJson {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
}
const packageJson = JSON.parse(read('package.json')) as PackageJson;
const CONFIG_SOURCE = 'shared/config/index.ts';

describe('documentation', () => {
  describe('the README is a short front door', () => {
    it(`is under ${README_MAX_BYTES} bytes`, () => {
      const size = Buffer.byteLength(read('README.md'));
      expect(size, `README.md is ${size} bytes`).to.be.below(README_MAX_BYTES);
    });

    it('links every page of docs/ and names no folder outside the repository', () => {
      const readme = read('README.md');
      const linked = new Set(listLinkTargets(readme).map((target) => target.split('#')[0]));
      for (const file of [...DOCS_PAGES, DECISIONS_INDEX])
        expect(linked, `README.md links ${file}`).to.include(file);
      for (const file of PRIMARY_DOCS)
        expect(findOutsidePaths(REPO_ROOT, file, read(file)), file).to.deep.equal([]);
    });
  });

  describe('decisions', () => {
    it(`${DECISIONS_INDEX} links every decision, and each has the four sections`, () => {
      const linked = new Set(
        listLinkTargets(read(DECISIONS_INDEX)).map((target) => `docs/decisions/${target}`),
      );
      expect(DECISION_FILES.length).to.be.above(10);
      for (const file of DECISION_FILES) {
        expect(linked, `${DECISIONS_INDEX} links ${file}`).to.include(file);
        const headings = [...read(file).matchAll(/^## (.+)$/gm)].map((match) => match[1]);
        expect(headings, file).to.deep.equal([
          'Context',
          'Decision',
          'Consequences',
          'Measurement',
        ]);
      }
    });
  });

  describe('names in the architecture and extending pages', () => {
    const files = listRepositoryFiles(REPO_ROOT);
    const index = indexSource(REPO_ROOT, files);
    const configured = new Set(listTableVariables(read('docs/configuration.md')));

    for (const file of RESOLVED_DOCS) {
      it(`every path and identifier ${file} names in code exists`, () => {
        expect(
          findUnresolvedSpans(REPO_ROOT, files, index, configured, file, read(file)),
        ).to.deep.equal([]);
      });
    }

    it('tells paths, identifiers, calls, constants and ordinary code apart', () => {
      const kinds = Object.fromEntries(
        [
          'shared/search/backend.ts',
          'jobs/*-job.ts',
          'row-worker.ts',
          'test/integration/<name>-backend.test.ts',
          'createApp',
          'EngineBackend.search',
          'perform(payload, context)',
          'req.accepts()',
          'JOB_HANDLERS',
          'npm run lint',
          '/catalogue/admin/jobs/{id}',
          '…/items?name=value',
          'ingest',
          'from/size',
          'Dockerfile',
          'shared/query/cql2/cql2-text-parser.generated.*',
        ].map((span) => [span, classifySpan(span)]),
      );
      expect(kinds).to.deep.equal({
        'shared/search/backend.ts': 'path',
        'jobs/*-job.ts': 'path',
        'row-worker.ts': 'path',
        'test/integration/<name>-backend.test.ts': 'path',
        createApp: 'identifier',
        'EngineBackend.search': 'identifier',
        'perform(payload, context)': 'call',
        'req.accepts()': 'call',
        JOB_HANDLERS: 'constant',
        'npm run lint': 'code',
        '/catalogue/admin/jobs/{id}': 'code',
        '…/items?name=value': 'code',
        ingest: 'code',
        'from/size': 'code',
        Dockerfile: 'code',
        'shared/query/cql2/cql2-text-parser.generated.*': 'code',
      });
    });

    it('finds a stale path, identifier, call and constant, and accepts live ones', () => {
      const markdown = [
        '`shared/search/backend.ts` `sqlite/rows.ts` `scripts/services/<name>.sh` `services/worker/jobs/`',
        '`createApp` `SearchBackend` `UnrecoverableError` `JOB_HANDLERS` `REDIS_URL` `CAIRN_TEST_SYSTEM_BACKEND`',
        '`checkFilter(tree, limits)` `req.accepts()` `ingest` `/catalogue/openapi` `npm test`',
        '`services/api/openapi/gone.ts` `gone-file.ts` `shared/gone/` `UNVALIDATED_PATHS` `JOBS_TABLE`',
        '`createGoneApp` `SearchBackend.goneMethod` `goneFunction(x)`',
        '```sh\nls `not/checked-in-code-blocks.ts`\n```',
      ].join('\n');
      expect(
        findUnresolvedSpans(REPO_ROOT, files, index, configured, 'docs/extending.md', markdown),
      ).to.deep.equal([
        'services/api/openapi/gone.ts (no such path)',
        'gone-file.ts (no such path)',
        'shared/gone/ (no such path)',
        'UNVALIDATED_PATHS (neither declared nor an environment variable)',
        'JOBS_TABLE (neither declared nor an environment variable)',
        'createGoneApp (not declared: createGoneApp)',
        'SearchBackend.goneMethod (not declared: goneMethod)',
        'goneFunction(x) (not declared: goneFunction)',
      ]);
    });
  });

  describe('links', () => {
    for (const file of DOC_FILES) {
      it(`every relative link of ${file} resolves (file and heading)`, () => {
        expect(findBrokenLinks(REPO_ROOT, file, read(file))).to.deep.equal([]);
      });
    }

    it('finds a missing file, a missing heading and a link out of the repository', () => {
      const markdown = [
        '# Title',
        '## Two words',
        '[ok](README.md) [ok](#two-words) [ok](docs/configuration.md#server) [web](https://x.org/a)',
        '[gone](docs/nothing.md) [heading](#three-words) [far](../shared/ARCHITECTURE.md)',
        '![gone](docs/screenshots/none.png) `[in code](not-checked.md)`',
      ].join('\n');
      expect(findBrokenLinks(REPO_ROOT, 'README.md', markdown)).to.deep.equal([
        'docs/nothing.md (no such file)',
        '#three-words (no heading #three-words)',
        '../shared/ARCHITECTURE.md (outside the repository)',
        'docs/screenshots/none.png (no such file)',
      ]);
    });

    it('finds paths that climb out of the repository, in code and prose too', () => {
      const text = 'see `../shared/ARCHITECTURE.md` and ../../x, not [a](../es-mappings/README.md)';
      expect(findOutsidePaths(REPO_ROOT, 'README.md', text)).to.deep.equal([
        '../shared/ARCHITECTURE.md',
        '../../x',
        '../es-mappings/README.md',
      ]);
      expect(findOutsidePaths(REPO_ROOT, 'docs/a.md', text)).to.deep.equal(['../../x']);
    });

    it('derives heading anchors as GitHub does', () => {
      expect(headingSlug('OGC API – Records: formats, HTML, OpenAPI')).to.equal(
        'ogc-api--records-formats-html-openapi',
      );
      expect(headingSlug('STAC API (`/catalogue/search`)')).to.equal('stac-api-cataloguesearch');
      expect([...listAnchors('# A\n## A\n<a id="x"></a>')]).to.deep.equal(['a', 'a-1', 'x']);
    });
  });

  describe('paths', () => {
    for (const file of PRIMARY_DOCS) {
      it(`every repository path ${file} names exists`, () => {
        expect(findMissingPaths(REPO_ROOT, file, read(file))).to.deep.equal([]);
      });
    }

    it('finds a missing file or folder, and a glob that matches nothing', () => {
      const markdown = [
        '`shared/xml/README.md` `bench/results/parse-*.json` `services/*/main.ts` `results/` (ok)',
        '`shared/xml/GONE.md` `bench/results/none-*.json` `scripts/*/gone.ts` `scripts/gone/` (missing)',
        '`from/size` `MI_Instrument/type` `data/cairn.sqlite` `dist/x.js` (not repository paths)',
        '```sh\nls test/not-checked-in-code-blocks\n```',
      ].join('\n');
      expect(findMissingPaths(REPO_ROOT, 'bench/README.md', markdown)).to.deep.equal([
        'shared/xml/GONE.md',
        'bench/results/none-*.json',
        'scripts/*/gone.ts',
        'scripts/gone/',
      ]);
    });
  });

  describe('npm scripts', () => {
    for (const file of DOC_FILES) {
      it(`every npm script ${file} mentions exists in package.json`, () => {
        const missing = listNpmScripts(read(file)).filter((name) => !packageJson.scripts[name]);
        expect(missing).to.deep.equal([]);
      });
    }

    it('reads `npm run x`, `npm start` and `npm test`, not other npm commands', () => {
      expect(
        listNpmScripts('npm ci && npm start; npm run ingest -- x; `npm run bench:worker`'),
      ).to.deep.equal(['bench:worker', 'ingest', 'start']);
    });
  });

  describe('runtime dependencies', () => {
    it('the README explains exactly the dependencies of package.json', () => {
      const explained = listExplainedDependencies(read('README.md'));
      expect(explained).to.deep.equal(Object.keys(packageJson.dependencies).sort());
    });

    it('reads the packages of the table', () => {
      const table =
        '## Runtime dependencies\n\n| package | why |\n| - | - |\n| `a`, `b` | x |\n\n## Next\n| `c` | y |';
      expect(listExplainedDependencies(table)).to.deep.equal(['a', 'b']);
    });
  });

  describe('configuration', () => {
    const schemaVariables = listSchemaVariables(read(CONFIG_SOURCE));

    it(`finds the variables ${CONFIG_SOURCE} reads`, () => {
      // A change in how the schemas are written must not make this suite vacuous.
      expect(schemaVariables).to.include.members([
        'HOST',
        'PORT',
        'AUTH_ISSUER_URL',
        'WORKER_METRICS_PORT',
      ]);
      expect(schemaVariables.length).to.be.above(40);
    });

    it('docs/configuration.md lists exactly the variables shared/config reads', () => {
      expect(listTableVariables(read('docs/configuration.md'))).to.deep.equal(schemaVariables);
    });

    it('.env.example lists exactly the variables shared/config reads', () => {
      expect(listEnvFileVariables(read('.env.example'))).to.deep.equal(schemaVariables);
    });

    it("the README's configuration table names only variables shared/config reads", () => {
      const readme = read('README.md');
      const section = /^## Configuration\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
      const named = listTableVariables(section);
      expect(named.length).to.be.above(5);
      expect(named.filter((name) => !schemaVariables.includes(name))).to.deep.equal([]);
    });

    it('notices a variable missing from the docs or one the code does not read', () => {
      const source = 'const s = z.object({\n  HOST: z.string(),\n  PORT: z.coerce.number(),\n});';
      expect(listSchemaVariables(source)).to.deep.equal(['HOST', 'PORT']);
      const table = '| variable | default |\n| --- | --- |\n| `HOST` | x |\n| `OLD_NAME` | y |';
      expect(listTableVariables(table)).to.deep.equal(['HOST', 'OLD_NAME']);
      expect(listEnvFileVariables('# comment\nHOST=127.0.0.1\nPORT=\n')).to.deep.equal([
        'HOST',
        'PORT',
      ]);
    });
  });
});
