/**
 * Loaded by mocha before any test file (.mocharc.json `require`): generates the peggy parsers
 * when they are missing or older than their grammars, so that a checkout where neither
 * `npm ci` nor `npm run build:grammars` has made them yet still runs its tests.
 */
import { ensureGenerated } from '../../scripts/build-grammars.js';

const written = await ensureGenerated();
if (written.length > 0) process.stderr.write(`generated ${written.join(', ')}\n`);
