import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig } from './config.js';
import { qpdfVersion } from './modules/delivery/pdf-merge.js';
import { createPortal } from './server.js';

// V8 starts allocating an object literal or array straight in its old generation once most of
// that site's objects have outlived young collections. Here the sites are shared by calls that
// last milliseconds and downloads that last seconds: after a few batch prints, every list call
// left its request objects in the old generation, which grew by about 80 MiB in 5 s of lists
// until a full collection (docs/decisions.md, "Allocation-site pretenuring off").
setFlagsFromString('--no-allocation-site-pretenuring');

// Whatever the portal writes (the database, result files, the signing secret) is its owner's
// alone, whatever umask the service manager passed on (docs/security.md, "Files").
process.umask(0o077);

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  // Merged reports (batch prints, "show all") are made by the qpdf program: without it the portal
  // would answer those with errors, so it says so now and does not start.
  const qpdf = await qpdfVersion();
  if (!qpdf) {
    process.stderr.write(
      'The portal needs the qpdf program to merge reports and it was not found. Install it (Debian/Ubuntu: apt-get install qpdf) or set QPDF_PATH to its path.\n',
    );
    process.exit(78);
  }
  const portal = await createPortal(config);
  portal.ctx.log.info({ qpdf }, 'merging reports with qpdf');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    portal.ctx.log.info({ signal }, 'stopping: finishing in-flight requests');
    portal
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        portal.ctx.log.error({ err: error }, 'error while stopping');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await portal.app.listen({ host: config.host, port: config.port });
  await portal.startMllp();
}

main().catch((error: unknown) => {
  process.stderr.write(
    `The portal could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
