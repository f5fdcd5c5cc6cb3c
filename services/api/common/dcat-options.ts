/**
 * The IRIs Cairn gives records in DCAT-AP (every protocol that writes it): a record's resource
 * is its Records item URL, and its HTML page is its dcat:landingPage. Pure.
 */
import type { DcatOptions } from '../../../shared/records/writers/dcat/index.js';
import { recordUrl } from './urls.js';

/** The DCAT mapping's options for records served under `baseUrl`. */
export function dcatOptions(baseUrl: string): DcatOptions {
  return {
    recordIri: (id) => recordUrl(baseUrl, id),
    landingPage: (id) => `${recordUrl(baseUrl, id)}?f=html`,
  };
}
