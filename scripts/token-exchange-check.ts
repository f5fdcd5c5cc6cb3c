/**
 * Operator command: runs the specification's token-exchange scenarios against a configured
 * identity provider and prints which behaviours hold (rule, expected, observed, ok).
 *
 *   npx tsx scripts/token-exchange-check.ts --issuer URL --client ID --secret S \
 *       --user-client web --username U --password P [--audience X --audience-scope S …]
 *   npx tsx scripts/token-exchange-check.ts --preset cairn-test     # the test realm's clients
 *
 * Without flags, the issuer, token URL and exchange client come from the configuration
 * (AUTH_ISSUER_URL, AUTH_TOKEN_URL, AUTH_EXCHANGE_CLIENT_ID, AUTH_EXCHANGE_CLIENT_SECRET); prefer
 * that for secrets, since command lines are visible to other users. Scenarios whose inputs are
 * missing are listed as skipped, with the flag they need. No token is printed.
 *
 * Exit status: 0 when the checks ran; 1 with --strict when a rule does not hold; 2 on bad usage,
 * bad configuration or an unreachable provider.
 */
import { parseArgs } from 'node:util';
import {
  runExchangeChecks,
  type CheckResult,
  type ExchangeCheckInputs,
} from '../shared/auth/exchange-checks.js';
import { ConfigError, loadConfig, type Config } from '../shared/config/index.js';

const USAGE = `Usage: npx tsx scripts/token-exchange-check.ts [options]

  --issuer URL                 issuer (Keycloak: {base}/realms/{realm}); default AUTH_ISSUER_URL
  --token-endpoint URL         default AUTH_TOKEN_URL or {issuer}/protocol/openid-connect/token
  --client ID --secret S       the exchanging confidential client; default AUTH_EXCHANGE_CLIENT_*
  --user-client ID [--user-secret S] --username U --password P
                               mints the subject (user) token with the password grant;
                               its tokens must carry --client in aud
  --audience ID --audience-scope S
                               a downstream client, and the optional scope of --client adding it
  --extra-scope S              another optional scope of --client
  --foreign-scope S            a scope not linked to --client
  --unavailable-audience ID    an existing client that no scope of --client adds
  --no-exchange-client ID --no-exchange-secret S
                               a confidential client without token exchange
  --public-client ID           a public client (default: --user-client when it has no secret)
  --other-client ID --other-secret S [--other-client-scope S]
                               an exchange-enabled client without refresh-in-exchange that is not in
                               the user's default aud; the scope puts it there
  --preset cairn-test          defaults for the test realm (test/fixtures/keycloak)
  --json                       print the results as JSON
  --strict                     exit 1 when a rule does not hold
  --help`;

const PRESETS: Record<string, Record<string, string>> = {
  'cairn-test': {
    issuer: 'http://127.0.0.1:8180/realms/cairn-test',
    client: 'cairn-worker',
    secret: 'cairn-worker-test-secret',
    'user-client': 'cairn-web',
    username: 'alice',
    password: 'alice-password',
    audience: 'cairn-downstream',
    'audience-scope': 'downstream-audience',
    'extra-scope': 'ingest',
    'foreign-scope': 'reports',
    'unavailable-audience': 'cairn-reports',
    'no-exchange-client': 'cairn-reports',
    'no-exchange-secret': 'cairn-reports-test-secret',
    'public-client': 'cairn-web',
    'other-client': 'cairn-exporter',
    'other-secret': 'cairn-exporter-test-secret',
    'other-client-scope': 'exporter-audience',
  },
};

const STRING_OPTIONS = [
  'issuer',
  'token-endpoint',
  'client',
  'secret',
  'user-client',
  'user-secret',
  'username',
  'password',
  'audience',
  'audience-scope',
  'extra-scope',
  'foreign-scope',
  'unavailable-audience',
  'no-exchange-client',
  'no-exchange-secret',
  'public-client',
  'other-client',
  'other-secret',
  'other-client-scope',
  'preset',
] as const;

type Options = Partial<Record<(typeof STRING_OPTIONS)[number], string>>;

/** Parses the command line into options (preset values first, flags override). */
function parseOptions(argv: string[]): Options & { json: boolean; strict: boolean; help: boolean } {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...Object.fromEntries(STRING_OPTIONS.map((name) => [name, { type: 'string' as const }])),
      json: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const given = values as Options & { json: boolean; strict: boolean; help: boolean };
  const preset = given.preset ? PRESETS[given.preset] : {};
  if (!preset)
    throw new Error(`unknown preset ${given.preset} (known: ${Object.keys(PRESETS).join(', ')})`);
  return { ...preset, ...given };
}

/** Builds the check inputs from options and configuration; throws when the essentials are missing. */
function buildInputs(options: Options, config: Readonly<Config> | undefined): ExchangeCheckInputs {
  const issuer = options.issuer ?? config?.auth.provider?.issuer;
  const tokenEndpoint =
    options['token-endpoint'] ??
    (options.issuer ? undefined : config?.auth.provider?.tokenUrl) ??
    (issuer ? `${issuer.replace(/\/+$/, '')}/protocol/openid-connect/token` : undefined);
  const clientId = options.client ?? config?.auth.exchange?.clientId;
  const secret = options.secret ?? config?.auth.exchange?.clientSecret;
  if (!tokenEndpoint) throw new Error('no issuer: give --issuer or set AUTH_ISSUER_URL');
  if (!clientId || !secret)
    throw new Error(
      'no exchanging client: give --client and --secret, or set AUTH_EXCHANGE_CLIENT_*',
    );
  const pair = (id?: string, clientSecret?: string) =>
    id ? { id, secret: clientSecret } : undefined;
  const userClient = pair(options['user-client'], options['user-secret']);
  const other = pair(options['other-client'], options['other-secret']);
  return {
    tokenEndpoint,
    client: { id: clientId, secret },
    user:
      userClient && options.username && options.password
        ? { client: userClient, username: options.username, password: options.password }
        : undefined,
    audience: options.audience,
    audienceScope: options['audience-scope'],
    extraScope: options['extra-scope'],
    foreignScope: options['foreign-scope'],
    unavailableAudience: options['unavailable-audience'],
    noExchangeClient: pair(options['no-exchange-client'], options['no-exchange-secret']),
    publicClient: options['public-client'],
    noRefreshClient: other && { ...other, subjectScope: options['other-client-scope'] },
  };
}

/** Renders results as a text table whose cells wrap at a fixed width. */
function renderTable(results: CheckResult[]): string {
  const header = { rule: 'rule', expected: 'expected', observed: 'observed', ok: 'ok' };
  const rows = [
    header,
    ...results.map((result) => ({
      rule: result.rule,
      expected: result.expected,
      observed: result.observed,
      ok: result.ok === undefined ? 'skip' : result.ok ? 'yes' : result.differs ? 'differs' : 'NO',
    })),
  ];
  const widths = { rule: 44, expected: 40, observed: 48, ok: 7 };
  const columns = Object.keys(widths) as Array<keyof typeof widths>;
  const wrap = (text: string, width: number): string[] => {
    const lines: string[] = [];
    let line = '';
    for (const word of text.split(' ')) {
      for (let rest = word; rest.length > 0; rest = rest.slice(width)) {
        const piece = rest.slice(0, width);
        if (line && line.length + 1 + piece.length > width) {
          lines.push(line);
          line = piece;
        } else line = line ? `${line} ${piece}` : piece;
      }
    }
    return [...lines, line];
  };
  const separator = columns.map((column) => '-'.repeat(widths[column])).join('-+-');
  const out: string[] = [];
  rows.forEach((row, index) => {
    const cells = columns.map((column) => ({ column, lines: wrap(row[column], widths[column]) }));
    const height = Math.max(...cells.map(({ lines }) => lines.length));
    for (let lineIndex = 0; lineIndex < height; lineIndex += 1) {
      out.push(
        cells
          .map(({ column, lines }) => (lines[lineIndex] ?? '').padEnd(widths[column]))
          .join(' | ')
          .trimEnd(),
      );
    }
    if (index === 0 || index < rows.length - 1) out.push(separator);
  });
  return out.join('\n');
}

async function main(): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  let config: Readonly<Config> | undefined;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 2;
  }
  let inputs: ExchangeCheckInputs;
  try {
    inputs = buildInputs(options, config);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  try {
    const probe = await fetch(inputs.tokenEndpoint, {
      method: 'POST',
      signal: AbortSignal.timeout(5000),
    });
    await probe.body?.cancel();
  } catch (error) {
    console.error(
      `The token endpoint ${inputs.tokenEndpoint} cannot be reached: ${(error as Error).message}`,
    );
    return 2;
  }
  const results = await runExchangeChecks(inputs);
  if (options.json) console.log(JSON.stringify(results, null, 2));
  else {
    console.log(
      `Token exchange checks against ${inputs.tokenEndpoint} (client ${inputs.client.id})\n`,
    );
    console.log(renderTable(results));
    const count = (ok: boolean | undefined) => results.filter((result) => result.ok === ok).length;
    const differing = results.filter((result) => result.ok === false && result.differs);
    if (differing.length > 0)
      console.log(
        `\nWhere the provider differs from the specification, and why:\n${differing
          .map((result) => `- ${result.rule}: ${result.differs}`)
          .join('\n')}`,
      );
    console.log(`\n${count(true)} hold, ${count(false)} do not hold, ${count(undefined)} skipped`);
  }
  return options.strict && results.some((result) => result.ok === false) ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
