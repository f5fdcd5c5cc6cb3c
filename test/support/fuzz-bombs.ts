/**
 * Hostile XML documents for the bomb tests (unit and HTTP): entity expansion, external and
 * parameter entities, DOCTYPEs, XInclude, deep nesting, floods of elements and huge values.
 * Each is a complete document wrapping a given well-formed body, so the same bomb can be put
 * in front of every XML entry point.
 */

/** What a refusal of each bomb must say (matched against the error message, case-insensitive). */
export interface Bomb {
  name: string;
  /** Builds the hostile document around a well-formed root element (as text). */
  build: (root: string) => string;
  /** What the refusal names. */
  names: RegExp;
}

/** Inserts `inner` just after the root element's start tag. */
function inside(root: string, inner: string): string {
  const end = root.indexOf('>') + 1;
  const selfClosing = root[end - 2] === '/';
  if (selfClosing) return `${root.slice(0, end - 2)}>${inner}</${/^<([^\s>/]+)/.exec(root)?.[1]}>`;
  return root.slice(0, end) + inner + root.slice(end);
}

const LAUGHS =
  '<!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from({ length: 9 }, (_, i) => {
    const previous = i === 0 ? 'lol' : `lol${i}`;
    return `<!ENTITY lol${i + 1} "${`&${previous};`.repeat(10)}">`;
  }).join('') +
  ']>';

/**
 * The bombs. `outOfBandUrl` is where an external entity would be fetched from (a loopback
 * listener the HTTP tests watch: it must never be called).
 */
export function xmlBombs(outOfBandUrl = 'http://127.0.0.1:9/evil.dtd'): Bomb[] {
  return [
    {
      name: 'billion laughs (internal entity expansion)',
      build: (root) => `${LAUGHS}${inside(root, '<x>&lol9;</x>')}`,
      names: /entit|DOCTYPE|DTD/i,
    },
    {
      name: 'external entity (file://)',
      build: (root) =>
        `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${inside(root, '<x>&xxe;</x>')}`,
      names: /external/i,
    },
    {
      name: 'external entity (http:// on loopback)',
      build: (root) =>
        `<!DOCTYPE r [<!ENTITY xxe SYSTEM "${outOfBandUrl}">]>${inside(root, '<x>&xxe;</x>')}`,
      names: /external/i,
    },
    {
      name: 'parameter entity (external DTD subset)',
      build: (root) => `<!DOCTYPE r [<!ENTITY % p SYSTEM "${outOfBandUrl}"> %p;]>${root}`,
      names: /external|entit|DTD/i,
    },
    {
      name: 'external DTD',
      build: (root) => `<!DOCTYPE r SYSTEM "${outOfBandUrl}">${root}`,
      names: /external|DTD/i,
    },
    {
      name: 'DOCTYPE without entities',
      build: (root) => `<!DOCTYPE r>${root}`,
      names: /DOCTYPE/i,
    },
    {
      name: 'XInclude',
      build: (root) =>
        inside(
          root,
          `<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd" parse="text"/>`,
        ),
      names: /XInclude|external/i,
    },
    {
      name: '100,000 nested elements',
      build: (root) => inside(root, `${'<n>'.repeat(100_000)}${'</n>'.repeat(100_000)}`),
      names: /nested deeper/i,
    },
    {
      name: 'a flood of 400,000 empty elements (1.6 MB)',
      build: (root) => inside(root, '<e/>'.repeat(400_000)),
      names: /more than the limit of \d+ elements/i,
    },
    {
      name: 'a 2 MB attribute value',
      build: (root) => inside(root, `<v a="${'x'.repeat(2_000_000)}"/>`),
      names: /attribute \\?"a\\?" is longer than the limit/i,
    },
    {
      name: 'a 2 MB text node',
      build: (root) => inside(root, `<v>${'x'.repeat(2_000_000)}</v>`),
      names: /text node is longer than the limit/i,
    },
  ];
}
