/**
 * Tombstone purge CLI: removes the tombstones of records deleted more than
 * OAI_TOMBSTONE_MAX_AGE_DAYS days ago from the configured backend (SQLite file or engine),
 * and says how many. Without OAI_TOMBSTONE_MAX_AGE_DAYS tombstones are kept for ever and it
 * removes nothing.
 *
 *   npm run purge-tombstones
 */
import { describeStartupFailure, loadConfig } from '../shared/config/index.js';
import { createBackend } from '../shared/search/create-backend.js';
import { withDeploymentGeneration } from '../shared/search/catalogue-generation.js';
import { purgeExpiredTombstones } from '../shared/search/purge-tombstones.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const backend = withDeploymentGeneration(await createBackend(config), config);
  try {
    const result = await purgeExpiredTombstones(backend, config.oai.tombstoneMaxAgeDays);
    process.stdout.write(
      result.before === undefined
        ? 'OAI_TOMBSTONE_MAX_AGE_DAYS is not set: tombstones are kept for ever, none removed\n'
        : `removed ${result.purged} tombstones of records deleted before ${result.before}\n`,
    );
  } finally {
    await backend.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${describeStartupFailure('purge-tombstones', error)}\n`);
  process.exitCode = 1;
});
