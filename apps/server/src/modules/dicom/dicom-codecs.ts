import { onFirstUse } from '../../lib/on-first-use.js';

/** Parsing, frames, rendering and transcoding of DICOM files, loaded with the first file handled. */
export const dicomCodecs = onFirstUse(async () => ({
  ...(await import('./dicom-file.js')),
  ...(await import('./render.js')),
  ...(await import('./transcode.js')),
}));
