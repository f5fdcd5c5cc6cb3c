/**
 * OAI-PMH sets: by resource type (`type`, `type:<type>`) and by parent collection
 * (`collection`, `collection:<parent id>`). A value becomes a setSpec segment with the
 * characters the setSpec syntax does not allow written as `~` and two hex digits per UTF-8
 * byte (`~` itself included), so that any type or collection id has a set and the setSpec
 * reads back to it exactly. Pure.
 */
import type { ChangeSet } from '../../../../shared/search/backend.js';

/** The top-level sets, by ChangeSet field. */
export const SET_ROOTS = { type: 'type', parentId: 'collection' } as const;

const PLAIN = /^[A-Za-z0-9\-_.!*'()]$/;

/** A value as one setSpec segment. */
export function encodeSetValue(value: string): string {
  let encoded = '';
  for (const character of value) {
    if (PLAIN.test(character)) encoded += character;
    else
      for (const byte of Buffer.from(character, 'utf8'))
        encoded += `~${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/** The value of a setSpec segment, or undefined when it is not one encodeSetValue writes. */
export function decodeSetValue(segment: string): string | undefined {
  if (!/^(?:[A-Za-z0-9\-_.!*'()]|~[0-9A-F]{2})+$/.test(segment)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < segment.length;) {
    if (segment[i] === '~') {
      bytes.push(parseInt(segment.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(segment.charCodeAt(i));
      i += 1;
    }
  }
  const value = Buffer.from(bytes).toString('utf8');
  // Bytes that are not UTF-8, or a spelling encodeSetValue would not write: not a set of ours.
  return encodeSetValue(value) === segment ? value : undefined;
}

/** The setSpec of a set. */
export function setSpecOf(set: ChangeSet): string {
  const root = SET_ROOTS[set.field];
  return set.value === undefined ? root : `${root}:${encodeSetValue(set.value)}`;
}

/** The set a setSpec names, or undefined when Cairn has no such set. */
export function parseSetSpec(spec: string): ChangeSet | undefined {
  const colon = spec.indexOf(':');
  const root = colon === -1 ? spec : spec.slice(0, colon);
  const field =
    root === SET_ROOTS.type ? 'type' : root === SET_ROOTS.parentId ? 'parentId' : undefined;
  if (field === undefined) return undefined;
  if (colon === -1) return { field };
  const value = decodeSetValue(spec.slice(colon + 1));
  return value === undefined ? undefined : { field, value };
}

/** The setSpecs of a record (or tombstone) with this type and parent collection. */
export function recordSetSpecs(type: string | null, parentId: string | null): string[] {
  const specs: string[] = [];
  if (type !== null) specs.push(SET_ROOTS.type, setSpecOf({ field: 'type', value: type }));
  if (parentId !== null)
    specs.push(SET_ROOTS.parentId, setSpecOf({ field: 'parentId', value: parentId }));
  return specs;
}
