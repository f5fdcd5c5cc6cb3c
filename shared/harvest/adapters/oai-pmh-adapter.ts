/**
 * Harvesting an OAI-PMH 2.0 data provider: ListRecords pages, following resumption tokens to
 * the end of the list, in ISO 19139 (metadataPrefix `iso19139`) or unqualified Dublin Core
 * (`oai_dc`); incremental runs ask for the records changed since a datestamp (`from`, at the
 * provider's granularity) and take the deleted records the provider reports in them. A page
 * that fails for a passing reason (unreachable, 5xx, timeout) is asked again, twice, before the
 * run fails; a listing whose resumption tokens end before the provider's completeListSize is
 * refused, so nothing is deleted after an incomplete listing.
 */
import {
  attr,
  elementSource,
  parseXml,
  XmlParseError,
  type XmlDocument,
  type XmlElement,
} from '../../xml/index.js';
import type { ResolvedSource } from '../harvest-source.js';
import { HarvestSourceError, type SourceClient } from '../source-client.js';
import {
  checkComplete,
  PageGuard,
  withQuery,
  type HarvestedDocument,
  type SourceAdapter,
} from './source-adapter.js';

const OAI = 'http://www.openarchives.org/OAI/2.0/';
/** Further attempts at a page that failed for a passing reason, and the wait before each. */
const PAGE_RETRY_DELAYS_MS = [500, 2000];

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

function oaiChild(element: XmlElement, local: string): XmlElement | undefined {
  return element.children.find((child) => child.ns === OAI && child.local === local);
}

function oaiChildren(element: XmlElement, local: string): XmlElement[] {
  return element.children.filter((child) => child.ns === OAI && child.local === local);
}

/**
 * The local record id of an OAI identifier: the part after `oai:<repository>:` in the
 * oai-identifier scheme, else the identifier itself. Deletions apply only to records this
 * source contributed under that id.
 */
export function localIdOf(identifier: string): string {
  const match = /^oai:[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z][A-Za-z0-9-]*)+:(.+)$/.exec(identifier);
  return match?.[1] ?? identifier;
}

/** One page of a list: its entries (records or headers) and its resumptionToken element. */
interface ListPage {
  document: XmlDocument;
  entries: XmlElement[];
  token?: XmlElement | undefined;
}

/** An OAI-PMH error answer: permanent, with the protocol's error codes. */
export class OaiPmhError extends HarvestSourceError {
  constructor(
    message: string,
    readonly codes: readonly string[],
  ) {
    super(message, true);
  }
}

export class OaiPmhAdapter implements SourceAdapter {
  /** Local ids the provider reported deleted during the last `pages` listing. */
  private deleted: string[] = [];
  /** Present: the provider reports deleted records in its incremental listings. */
  readonly deletions = { deletedIds: (): readonly string[] => this.deleted };

  constructor(
    private readonly source: ResolvedSource,
    private readonly client: SourceClient,
    private readonly maxBytes: number,
  ) {}

  private get metadataPrefix(): string {
    return this.source.outputSchema === 'dc' ? 'oai_dc' : 'iso19139';
  }

  /** One request, parsed; an OAI-PMH error other than noRecordsMatch is a permanent failure. */
  private async ask(parameters: Record<string, string>): Promise<XmlDocument | undefined> {
    const url = withQuery(this.source.url, parameters);
    let text = '';
    for (let attempt = 0; ; attempt += 1) {
      try {
        text = (await this.client.request(url, { accept: 'text/xml, application/xml' })).text;
        break;
      } catch (error) {
        const delay = PAGE_RETRY_DELAYS_MS[attempt];
        if (!(error instanceof HarvestSourceError) || error.permanent || delay === undefined)
          throw error;
        await sleep(delay);
      }
    }
    let document: XmlDocument;
    try {
      document = parseXml(text, { maxBytes: this.maxBytes });
    } catch (error) {
      const reason = error instanceof XmlParseError ? error.reason : 'unreadable';
      throw new HarvestSourceError(
        `${this.source.url} did not answer readable XML (${reason})`,
        true,
      );
    }
    if (document.root.ns !== OAI || document.root.local !== 'OAI-PMH')
      throw new HarvestSourceError(`${this.source.url} did not answer an OAI-PMH response`, true);
    const errors = oaiChildren(document.root, 'error').map(
      (error) => attr(error, '', 'code') ?? '',
    );
    if (errors.includes('noRecordsMatch')) return undefined;
    if (errors.length > 0) {
      // The codes are the protocol's vocabulary; the messages are the source's words and stay out.
      const codes = errors.filter((code) => /^[A-Za-z]{1,40}$/.test(code));
      throw new OaiPmhError(`${this.source.url} answered OAI-PMH error ${codes.join(', ')}`, codes);
    }
    return document;
  }

  /** The datestamp granularity the provider declares (Identify). */
  private async identify(): Promise<{ seconds: boolean; deletions: boolean }> {
    const document = await this.ask({ verb: 'Identify' });
    const identify = document && oaiChild(document.root, 'Identify');
    if (identify === undefined)
      throw new HarvestSourceError(`${this.source.url} did not answer Identify`, true);
    const granularity = oaiChild(identify, 'granularity')?.text.trim();
    const deletedRecord = oaiChild(identify, 'deletedRecord')?.text.trim();
    return { seconds: granularity === 'YYYY-MM-DDThh:mm:ssZ', deletions: deletedRecord !== 'no' };
  }

  /** Every page of a list, following the resumption tokens; checks the list was complete. */
  private async *list(
    verb: 'ListRecords' | 'ListIdentifiers',
    from?: string,
  ): AsyncIterable<ListPage> {
    const guard = new PageGuard(this.source.url);
    const listing: Record<string, string> = {
      verb,
      metadataPrefix: this.metadataPrefix,
      ...(from === undefined ? {} : { from }),
    };
    let parameters = listing;
    // OAI-PMH makes resumptionToken an exclusive argument. pycsw's provider (3.0) reads the
    // token as a start position only: it answers a bare token with badArgument ("Missing
    // metadataPrefix") and would forget `from`. A bare token answered with badArgument is
    // therefore asked again with the listing's own arguments beside it, and so are the
    // listing's later pages.
    let repeatListing = false;
    let seen = 0;
    let completeListSize: number | undefined;
    for (;;) {
      guard.next(parameters.resumptionToken ?? '');
      let document: XmlDocument | undefined;
      try {
        document = await this.ask(parameters);
      } catch (error) {
        const token = parameters.resumptionToken;
        if (
          repeatListing ||
          token === undefined ||
          !(error instanceof OaiPmhError && error.codes.includes('badArgument'))
        )
          throw error;
        repeatListing = true;
        parameters = { ...listing, resumptionToken: token };
        document = await this.ask(parameters);
      }
      if (document === undefined) return;
      const list = oaiChild(document.root, verb);
      if (list === undefined)
        throw new HarvestSourceError(`${this.source.url} did not answer ${verb}`, true);
      const entries = oaiChildren(list, verb === 'ListRecords' ? 'record' : 'header');
      const token = oaiChild(list, 'resumptionToken');
      seen += entries.length;
      const size = token && attr(token, '', 'completeListSize');
      if (size !== undefined && /^\d+$/.test(size)) completeListSize = Number(size);
      yield { document, entries, token };
      const next = token?.text.trim();
      if (next === undefined || next === '') break;
      parameters = repeatListing
        ? { ...listing, resumptionToken: next }
        : { verb, resumptionToken: next };
    }
    checkComplete(this.source.url, seen, completeListSize);
  }

  async *pages(options: { modifiedSince?: string }): AsyncIterable<HarvestedDocument[]> {
    this.deleted = [];
    let from: string | undefined;
    if (options.modifiedSince !== undefined) {
      const { seconds, deletions } = await this.identify();
      if (!deletions)
        // Without deleted records, only a full listing shows what is gone.
        throw new HarvestSourceError(`${this.source.url} does not report deleted records`, true);
      const iso = new Date(options.modifiedSince).toISOString();
      from = seconds ? `${iso.slice(0, 19)}Z` : iso.slice(0, 10);
    }
    for await (const page of this.list('ListRecords', from)) {
      const documents: HarvestedDocument[] = [];
      for (const record of page.entries) {
        const header = oaiChild(record, 'header');
        const identifier = header && oaiChild(header, 'identifier')?.text.trim();
        if (header === undefined || !identifier)
          throw new HarvestSourceError(
            `${this.source.url}: a record has no header identifier`,
            true,
          );
        if (attr(header, '', 'status') === 'deleted') {
          this.deleted.push(localIdOf(identifier));
          continue;
        }
        const metadata = oaiChild(record, 'metadata')?.children[0];
        if (metadata === undefined) continue;
        documents.push({
          name: `${this.source.url} ${identifier}`,
          content: elementSource(page.document, metadata),
        });
      }
      yield documents;
    }
  }
}
