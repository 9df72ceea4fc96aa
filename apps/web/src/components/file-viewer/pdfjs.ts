// pdf.js, loaded only when a report opens (this module is imported lazily by the PDF viewer). The
// legacy build carries the polyfills that Safari on iPhones and older Android Chrome need; the
// worker is a file of its own, served from this origin like the app (the CSP allows no other).
import { getDocument, GlobalWorkerOptions } from 'pdfjs-dist/legacy/build/pdf.mjs';
import workerUrl from 'pdfjs-dist/legacy/build/pdf.worker.min.mjs?url';

GlobalWorkerOptions.workerSrc = workerUrl;

export type { PDFDocumentProxy, RenderTask } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Opens a PDF from its bytes; no network access, no script evaluation (the CSP forbids it). */
export function openPdf(bytes: ArrayBuffer) {
  return getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, enableXfa: false }).promise;
}
