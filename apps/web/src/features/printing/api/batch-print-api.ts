import { fetchFile, saveFile } from '../../../components/results-api';

/**
 * Contract 7 batch print: one PDF of the selected protocols, or (compressed) a zip with a folder
 * per protocol. The file keeps the name the server gives it.
 */
export async function batchPrint(
  requestIds: string[],
  compressed: boolean,
  userId: string | null,
  onProgress: (received: number, total: number | null) => void,
): Promise<string> {
  const file = await fetchFile(
    '/api/v2/delivery/resource/batchPrinting',
    { method: 'POST', body: { userId, requestIds, isCompressed: compressed } },
    onProgress,
  );
  saveFile(file);
  return file.fileName;
}
