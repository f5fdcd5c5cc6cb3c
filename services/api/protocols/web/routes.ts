/**
 * Routes for web crawlers: /robots.txt at the server root, the sitemap index and the sitemap
 * files under /catalogue. Thin: the ranges come from sitemap-walk.ts, the text from sitemap.ts
 * and robots.ts.
 */
import { Router, type Request, type Response } from 'express';
import { NotFoundError, UnknownParameterError } from '../../../../shared/errors/index.js';
import type { ProtocolContext } from '../protocol.js';
import { recordPageUrl } from '../../common/urls.js';
import { presentRobotsTxt } from './robots.js';
import {
  parseSitemapFileQuery,
  presentLastmod,
  SITEMAP_FILE_PATH,
  SITEMAP_INDEX_PATH,
  sitemapFileUrl,
  sitemapIndexUrl,
  urlsPerFile,
  writeSitemapFile,
  writeSitemapIndex,
  type SitemapEntry,
} from './sitemap.js';
import { planSitemapFiles, readRange } from './sitemap-walk.js';

const XML_TYPE = 'application/xml; charset=utf-8';

/** Refuses every query parameter (the robots.txt and the index take none). */
function refuseParameters(request: Request): void {
  const [name] = Object.keys(request.query);
  if (name !== undefined) throw new UnknownParameterError(name);
}

/** The router of /robots.txt, mounted at the server root. */
export function createRobotsRouter({ config }: ProtocolContext): Router {
  const router = Router();
  const { robots, sitemap } = config.web;
  router.get('/robots.txt', (request: Request, response: Response) => {
    if (robots.mode === 'off') throw new NotFoundError('No robots.txt here (ROBOTS_TXT=off)');
    refuseParameters(request);
    const text =
      robots.mode === 'file'
        ? robots.text
        : presentRobotsTxt({
            baseUrl: request.publicBaseUrl,
            sitemapUrl: sitemap.enabled ? sitemapIndexUrl(request.publicBaseUrl) : undefined,
            readsRequireToken: config.auth.readsRequireToken,
          });
    response.type('text/plain; charset=utf-8').send(text);
  });
  return router;
}

/** The router of the sitemap index and files, mounted at /catalogue. */
export function createSitemapRouter({ config, backend }: ProtocolContext): Router {
  const router = Router();
  const perFile = urlsPerFile(config.web.sitemap.urlsPerFile);
  const requireEnabled = (): void => {
    if (!config.web.sitemap.enabled)
      throw new NotFoundError('No sitemaps here (SITEMAP_ENABLED=false)');
  };

  router.get(SITEMAP_INDEX_PATH, async (request, response) => {
    requireEnabled();
    refuseParameters(request);
    const plan = await planSitemapFiles(backend, perFile, { scope: request.searchScope });
    const urls = plan.files.map((range) => sitemapFileUrl(request.publicBaseUrl, range));
    response.type(XML_TYPE).send(writeSitemapIndex(urls));
  });

  router.get(SITEMAP_FILE_PATH, async (request, response) => {
    requireEnabled();
    const range = parseSitemapFileQuery(request.query);
    const entries: SitemapEntry[] = [];
    const options = { scope: request.searchScope };
    for await (const batch of readRange(backend, range, perFile, undefined, options)) {
      for (const { id, updated } of batch) {
        entries.push({
          loc: recordPageUrl(request.publicBaseUrl, id),
          lastmod: presentLastmod(updated),
        });
      }
    }
    response.type(XML_TYPE).send(writeSitemapFile(entries));
  });

  return router;
}
