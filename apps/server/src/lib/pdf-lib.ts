import { onFirstUse } from './on-first-use.js';

/** pdf-lib, which makes and reads the portal's own PDFs, loaded with the first one. */
export const pdfLib = onFirstUse(() => import('pdf-lib'));
