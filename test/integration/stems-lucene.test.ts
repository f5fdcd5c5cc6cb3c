/**
 * Cairn stems free text in Node (shared/records/stems.ts) so that every backend matches the
 * same stems. This checks those stems word for word against the Snowball stemmers the engines'
 * own `snowball` token filter runs: the lucene-analysis-common jar of the Elasticsearch and
 * OpenSearch the test run is given (found from each node's path.home), run by Java over the
 * word lists in test/fixtures/stems/ (samples of Debian's word lists; see its README). Needs
 * CAIRN_TEST_ELASTICSEARCH_URL, CAIRN_TEST_OPENSEARCH_URL and `java` on the PATH.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { STEMMED_LANGUAGES, stemText } from '../../shared/records/stems.js';
import { stripAccents } from '../../shared/query/text-folding.js';
import { requireEngineUrl } from './engine-backend-cases.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const WORDS = path.join(here, '../fixtures/stems');
const STEM_JAVA = path.join(here, '../support/lucene-stem/Stem.java');

/** The engine's lucene-analysis-common jar, from the node's home directory on this machine. */
async function luceneJar(url: string): Promise<string> {
  const response = await fetch(
    `${url}/_nodes/_local/settings?filter_path=nodes.*.settings.path.home`,
  );
  const body = (await response.json()) as {
    nodes: Record<string, { settings: { path: { home: string } } }>;
  };
  const [node] = Object.values(body.nodes);
  if (node === undefined) throw new Error(`${url} names no local node`);
  const lib = path.join(node.settings.path.home, 'lib');
  const jar = readdirSync(lib).find((name) => /^lucene-analysis-common-.*\.jar$/.test(name));
  if (jar === undefined) throw new Error(`no lucene-analysis-common jar in ${lib}`);
  return path.join(lib, jar);
}

/** Lucene's stem of every word, in order. */
function luceneStems(jar: string, algorithm: string, words: string[]): string[] {
  const name = algorithm[0]?.toUpperCase() + algorithm.slice(1);
  const output = execFileSync('java', ['-cp', jar, STEM_JAVA, name], {
    input: `${words.join('\n')}\n`,
    maxBuffer: 64 * 1024 * 1024,
  });
  return output.toString('utf8').split('\n').slice(0, words.length);
}

for (const engine of ['elasticsearch', 'opensearch'] as const) {
  const url = requireEngineUrl(engine);
  if (!url) continue;
  describe(`free-text stems against the Snowball stemmers of ${engine}'s Lucene`, () => {
    let jar: string;
    before(async () => {
      jar = await luceneJar(url);
    });

    for (const [language, algorithm] of Object.entries(STEMMED_LANGUAGES)) {
      it(`${language} (${algorithm}): every word of the list stems alike`, function () {
        this.timeout(60_000);
        const words = readFileSync(path.join(WORDS, `${language}.txt`), 'utf8')
          .split('\n')
          .filter((word) => word !== '');
        expect(words.length).to.be.greaterThan(1900);
        const lucene = luceneStems(jar, algorithm, words);
        // Compared as indexed: stemText folds accents after stemming, so Lucene's stem is
        // folded the same way.
        const differences = words.filter(
          (word, i) => stemText(word, language)[0] !== stripAccents(lucene[i] ?? '').toLowerCase(),
        );
        if (language === 'fr') {
          // Snowball 2's French treats ë and ï as vowels apart ("aiguë" → "aigu"); the JavaScript
          // port keeps the older rule. These words alone differ (94 of Debian's 341,727).
          expect(differences.length).to.be.greaterThan(0);
          expect(differences.filter((word) => !/[ëï]/.test(word))).to.deep.equal([]);
        } else {
          expect(differences).to.deep.equal([]);
        }
      });
    }
  });
}
