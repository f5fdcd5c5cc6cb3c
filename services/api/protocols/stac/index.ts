/**
 * The STAC API as a protocol module: item search, queryables, the STAC API root with its
 * Collections and the `f=stac` collection, its part of the OpenAPI document and its
 * conformance classes.
 */
import { catalogueUrl } from '../../common/urls.js';
import type { Protocol } from '../protocol.js';
import { STAC_CONFORMANCE_CLASSES } from './capabilities.js';
import { buildStacPaths, buildStacSchemas } from './openapi.js';
import { createStacRouter } from './routes.js';

/** The STAC API protocol module. */
export const STAC_PROTOCOL: Protocol = {
  name: 'stac',
  mounts: [
    {
      stage: 'reads',
      path: catalogueUrl(''),
      create: createStacRouter,
    },
  ],
  openapi: {
    tags: [{ name: 'STAC API', description: 'STAC API item search' }],
    validated: true,
    paths: () => buildStacPaths(),
    schemas: buildStacSchemas,
  },
  conformance: STAC_CONFORMANCE_CLASSES,
};
