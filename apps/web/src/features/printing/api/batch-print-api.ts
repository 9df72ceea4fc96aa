import { fetchFile, saveFile } from '../../../components/results-api';

/**
 * Contract 7 batch print: one PDF of the selected protocols, or (compressed) a zip with a folder
 * per protocol. The file keeps the name the server gives it; `leftOut` counts the reports the PDF
 * could not include (a page in each one's place says why).
 */
export async function batchPrint(
  requestIds: string[],
  compressed: boolean,
  userId: string | null,
  onProgress: (received: number, total: number | null) => void,
): Promise<{ fileName: string; leftOut: number }> {
  const file = await fetchFile(
    '/api/v2/delivery/resource/batchPrinting',
    { method: 'POST', body: { userId, requestIds, isCompressed: compressed } },
    onProgress,
  );
  saveFile(file);
  return { fileName: file.fileName, leftOut: file.leftOut };
}
