/*
 * What the DICOM routes need to know of transfer syntaxes without the codecs: the DICOM libraries
 * (dcmjs, dcmjs-imaging, dicom-parser) load only with the first file parsed, cut or rendered
 * (dicom-codecs.ts).
 */

export const EXPLICIT_VR_LITTLE_ENDIAN = '1.2.840.10008.1.2.1';

/** Deflated Explicit VR Little Endian: native pixels in a deflated data set, which browsers' DICOM libraries (dwv) cannot inflate. */
export const DEFLATED_EXPLICIT_VR_LITTLE_ENDIAN = '1.2.840.10008.1.2.1.99';

/** JPEG-LS, lossless and near-lossless: what browsers' DICOM libraries (dwv) cannot decode. */
const JPEG_LS = new Set(['1.2.840.10008.1.2.4.80', '1.2.840.10008.1.2.4.81']);

/** Whether `transcode` can turn a file of this transfer syntax into Explicit VR Little Endian. */
export function canTranscode(transferSyntaxUid: string): boolean {
  return JPEG_LS.has(transferSyntaxUid) || transferSyntaxUid === DEFLATED_EXPLICIT_VR_LITTLE_ENDIAN;
}

/** Transfer syntaxes whose pixels are native (the deflated one included: only its data set is deflated). */
const NATIVE = new Set([
  '1.2.840.10008.1.2',
  EXPLICIT_VR_LITTLE_ENDIAN,
  '1.2.840.10008.1.2.2',
  DEFLATED_EXPLICIT_VR_LITTLE_ENDIAN,
]);

/** PS3.18 8.7.3.3.2: the media type a frame of each transfer syntax travels as. */
export function frameMediaType(transferSyntaxUid: string): string {
  if (NATIVE.has(transferSyntaxUid)) return 'application/octet-stream';
  const media =
    {
      '1.2.840.10008.1.2.4.50': 'image/jpeg',
      '1.2.840.10008.1.2.4.51': 'image/jpeg',
      '1.2.840.10008.1.2.4.57': 'image/jpeg',
      '1.2.840.10008.1.2.4.70': 'image/jpeg',
      '1.2.840.10008.1.2.4.80': 'image/jls',
      '1.2.840.10008.1.2.4.81': 'image/jls',
      '1.2.840.10008.1.2.4.90': 'image/jp2',
      '1.2.840.10008.1.2.4.91': 'image/jp2',
      '1.2.840.10008.1.2.5': 'image/dicom-rle',
    }[transferSyntaxUid] ?? 'application/octet-stream';
  return `${media}; transfer-syntax=${transferSyntaxUid}`;
}

/** A file that is not DICOM Part 10, or that the portal cannot read. */
export class DicomParseError extends Error {}
