// Lint rules: typescript-eslint's type-checked recommended set on the TypeScript sources
// (floating and misused promises among them), the recommended set elsewhere.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const CONCRETE_BACKENDS = {
  regex: '/shared/search/(sqlite|engine)/',
  message:
    'Use the SearchBackend interface (shared/search/backend.ts), its optional capabilities and the factories in shared/search (create-backend, scratch-backend): services never import a concrete backend.',
};
const OTHER_SERVICE = (name) => ({
  regex: `(/services/${name}/|^(\\.\\./)+${name}/)`,
  message: 'The API and the worker share code through shared/, never each other.',
});
const API_LAYERS_BELOW = {
  regex: '(^|/)(protocols|html|middleware|openapi|registry)/|^\\.\\./(app|main)\\.js$',
  message:
    'services/api/common and services/api/commands sit below the protocols, the pages and the middleware: move what they need down into them, or pass it in.',
};
const SHARED_CONCRETE_BACKENDS = {
  regex: '(^|/)search/(sqlite|engine)/',
  message:
    "Outside shared/search only the ingest CLI's SQLite fast path names a concrete backend: take a SearchBackend, test its optional capabilities, or add a chooser beside create-backend.ts (as open-stores.ts does).",
};
const BACKENDS_APART =
  'The SQLite and engine backends never import each other: what both need lives in shared/query or shared/records.';
const UNCHECKED_CAST =
  'A CheckedFilter comes from checkFilter or andChecked (shared/query/check-filter.ts), never from a cast: check the tree, or compose checked filters with andChecked.';
/** A cast (`as`, `<…>`) to CheckedFilter, alone, in a union or in an array. */
const CHECKED_FILTER_CASTS = ['TSAsExpression', 'TSTypeAssertion'].flatMap((cast) =>
  ['', ' > TSUnionType', ' > TSArrayType', ' > TSUnionType > TSArrayType'].map(
    (path) => `${cast}${path} > TSTypeReference[typeName.name='CheckedFilter']`,
  ),
);

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      '**/*.generated.js',
      'services/api/static/vendor/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Type-aware rules need the program: every .ts file is in tsconfig.json.
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // Tests read HTTP answers (supertest's `body` is `any`) and parsed JSON by property: the
    // unsafe-any rules would only add casts there. Promises and the rest stay checked.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: {
      globals: { process: 'readonly', URL: 'readonly', performance: 'readonly' },
    },
  },
  // The seams (docs/architecture.md): the API and the worker reach the search backends only
  // through shared/search's interface and factories, never a concrete backend, and never
  // import each other; the two backends never import each other.
  {
    files: ['services/api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [CONCRETE_BACKENDS, OTHER_SERVICE('worker')] },
      ],
    },
  },
  {
    files: ['services/api/common/**/*.ts', 'services/api/commands/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [CONCRETE_BACKENDS, OTHER_SERVICE('worker'), API_LAYERS_BELOW] },
      ],
    },
  },
  {
    files: ['services/worker/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [CONCRETE_BACKENDS, OTHER_SERVICE('api')] }],
    },
  },
  {
    files: ['shared/**/*.ts'],
    ignores: [
      'shared/search/**',
      // The ingest CLI's SQLite fast path writes rows in worker threads.
      'shared/ingest/parallel-ingest.ts',
      'shared/ingest/row-worker.ts',
    ],
    rules: {
      'no-restricted-imports': ['error', { patterns: [SHARED_CONCRETE_BACKENDS] }],
    },
  },
  {
    files: ['shared/search/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(/search/sqlite/|^\\.\\./sqlite/)', message: BACKENDS_APART }] },
      ],
    },
  },
  {
    files: ['shared/search/sqlite/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(/search/engine/|^\\.\\./engine/)', message: BACKENDS_APART }] },
      ],
    },
  },
  // Only the checker names a tree a CheckedFilter (shared/query/checked-filter.ts): a cast to
  // the brand anywhere else would hand a backend a tree nobody checked.
  {
    files: ['**/*.ts'],
    ignores: ['shared/query/check-filter.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...CHECKED_FILTER_CASTS.map((selector) => ({ selector, message: UNCHECKED_CAST })),
      ],
    },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // An async function that does not await still turns a throw into a rejection, which
      // callers of the interfaces (SearchBackend, job handlers, Express handlers) rely on.
      '@typescript-eslint/require-await': 'off',
      // Methods are passed as values only where they do not use `this` (pure writers in tables,
      // assertions on optional members); the rule cannot tell, and binding them adds nothing.
      '@typescript-eslint/unbound-method': 'off',
      // Callback APIs (execFile, node:http) hand their own Error subclasses, typed loosely, to
      // reject; wrapping them would hide the original error.
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      // Messages echo what a client or a source sent, whatever its type, through String() and
      // templates on purpose; the two rules would ask for a cast at each of them.
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
);
