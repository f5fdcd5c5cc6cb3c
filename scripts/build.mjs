// Builds dist/ from the TypeScript sources, for `npm start`, `npm run worker` and the image.
//
//   node scripts/build.mjs           # only when a source is newer than the last build
//   node scripts/build.mjs --force   # always
//
// esbuild transpiles each file on its own (no bundling; the sources are written for
// isolatedModules, so a file-by-file transpile emits what tsc would): about a second for the
// whole tree where tsc takes 15 CPU-seconds. Types are checked by `npm run typecheck` (part of
// `npm run lint` and of the test command), not here. A stamp file records the newest source
// time it built, so a restart with nothing changed starts at once.
//
// The peggy parsers (`*.generated.js`) are not committed: when one is missing or older than its
// grammar or scripts/build-grammars.ts, that script runs first.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist');
const STAMP = join(OUT, '.build-stamp');
const SOURCE_FOLDERS = ['services', 'shared', 'scripts'];
/** Files whose change can alter the output without a source changing. */
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'scripts/build.mjs'];

function isSource(name) {
  return (name.endsWith('.ts') && !name.endsWith('.d.ts')) || name.endsWith('.generated.js');
}

function listSources(folder) {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && isSource(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

function newestTime(files) {
  return files.reduce((newest, file) => Math.max(newest, statSync(file).mtimeMs), 0);
}

function builtTime() {
  return modifiedTime(STAMP);
}

function modifiedTime(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** Whether a grammar (`x.peggy`) has no parser (`x-parser.generated.{js,d.ts}`) newer than it. */
function grammarsOutdated() {
  const script = modifiedTime(join(ROOT, 'scripts/build-grammars.ts'));
  return readdirSync(join(ROOT, 'shared'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.peggy'))
    .some((entry) => {
      const base = join(entry.parentPath, entry.name.slice(0, -'.peggy'.length));
      const newestInput = Math.max(modifiedTime(join(entry.parentPath, entry.name)), script);
      return ['-parser.generated.js', '-parser.generated.d.ts'].some(
        (suffix) => modifiedTime(base + suffix) < newestInput,
      );
    });
}

if (grammarsOutdated()) {
  const generate = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-grammars.ts'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (generate.status !== 0) {
    process.stderr.write('generating the parsers failed (scripts/build-grammars.ts)\n');
    process.exit(1);
  }
}

const sources = SOURCE_FOLDERS.flatMap(listSources);
const newest = newestTime([...sources, ...SETTINGS.map((file) => join(ROOT, file))]);
if (!process.argv.includes('--force') && builtTime() >= newest) process.exit(0);

const began = performance.now();
const { build } = await import('esbuild');
await build({
  entryPoints: sources,
  outdir: OUT,
  outbase: ROOT,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  tsconfig: join(ROOT, 'tsconfig.build.json'),
  logLevel: 'warning',
});
// The stamp's time is the newest source time it saw, so a file saved during the build is seen
// as newer next time.
writeFileSync(STAMP, `${new Date(newest).toISOString()}\n`);
utimesSync(STAMP, new Date(), new Date(Math.ceil(newest)));
process.stderr.write(
  `built ${sources.length} files into ${relative(ROOT, OUT)}/ in ${Math.round(performance.now() - began)} ms\n`,
);
