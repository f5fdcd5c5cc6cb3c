/**
 * The key-value parameters of a CSW 2.0.2 GetRecords for `csw:Record` results, as the
 * benchmarks and the cluster check send it; `extra` adds members (a `startPosition`, a
 * constraint) or overrides one.
 */
export function cswGetRecords(
  elementSetName: 'brief' | 'summary' | 'full',
  maxRecords: number | string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    service: 'CSW',
    version: '2.0.2',
    request: 'GetRecords',
    typeNames: 'csw:Record',
    resultType: 'results',
    elementSetName,
    maxRecords: String(maxRecords),
    ...extra,
  };
}
