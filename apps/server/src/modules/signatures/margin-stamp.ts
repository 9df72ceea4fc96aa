import type { PDFDocument } from 'pdf-lib';
import { formatVerificationCode } from '@portal/shared/schemas/signatures';
import { onFirstUse } from '../../lib/on-first-use.js';
import { pdfLib } from '../../lib/pdf-lib.js';

/** The QR code maker, loaded with the first stamped copy. */
const qrCode = onFirstUse(() => import('qrcode').then((m) => m.default));

/*
 * Issue 22.3: a copy of a report with its verification code and a QR code to `/validar` in a
 * strip added below each page (the page grows; nothing of the report is covered). The stored
 * report and its signed file are never changed: only copies (merged prints, the stamped download)
 * carry the stamp. Made by pdf-lib; a PDF it cannot read (encrypted, damaged) or larger than
 * STAMP_MAX_BYTES is left as it is.
 */

export const STAMP_MAX_BYTES = 16 * 1024 * 1024;
const STRIP = 46;

export type StampLanguage = 'pt-br' | 'es' | 'en';
const WORDS: Record<StampLanguage, { code: string; check: string }> = {
  'pt-br': { code: 'Código de verificação', check: 'Verifique a autenticidade em' },
  es: { code: 'Código de verificación', check: 'Verifique la autenticidad en' },
  en: { code: 'Verification code', check: 'Check its authenticity at' },
};

export const validationUrl = (publicUrl: string, code: string) =>
  `${publicUrl}/validar?code=${formatVerificationCode(code)}`;

export async function stampReport(
  bytes: Uint8Array,
  code: string,
  publicUrl: string,
  language: StampLanguage,
): Promise<Buffer | null> {
  if (bytes.byteLength > STAMP_MAX_BYTES) return null;
  const { PDFDocument, rgb, StandardFonts } = await pdfLib();
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, { updateMetadata: false });
  } catch {
    return null;
  }
  const url = validationUrl(publicUrl, code);
  const qr = await doc.embedPng(
    await (await qrCode()).toBuffer(url, { type: 'png', errorCorrectionLevel: 'M', margin: 1, scale: 4 }),
  );
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const words = WORDS[language];
  for (const page of doc.getPages()) {
    const box = page.getMediaBox();
    const crop = page.getCropBox();
    const bottom = Math.max(box.y, crop.y) - STRIP;
    page.setMediaBox(box.x, box.y - STRIP, box.width, box.height + STRIP);
    page.setCropBox(crop.x, bottom, crop.width, crop.y + crop.height - bottom);
    const left = crop.x;
    page.drawRectangle({ x: left, y: bottom, width: crop.width, height: STRIP, color: rgb(1, 1, 1) });
    page.drawLine({
      start: { x: left, y: bottom + STRIP - 0.5 },
      end: { x: left + crop.width, y: bottom + STRIP - 0.5 },
      thickness: 0.5,
      color: rgb(0.7, 0.7, 0.7),
    });
    page.drawImage(qr, { x: left + 6, y: bottom + 4, width: STRIP - 8, height: STRIP - 8 });
    const textX = left + STRIP + 4;
    page.drawText(`${words.code}: `, { x: textX, y: bottom + 26, size: 8, font, color: rgb(0.2, 0.2, 0.2) });
    page.drawText(formatVerificationCode(code), {
      x: textX + font.widthOfTextAtSize(`${words.code}: `, 8),
      y: bottom + 26,
      size: 9,
      font: bold,
      color: rgb(0, 0, 0),
    });
    page.drawText(`${words.check} ${publicUrl}/validar`, {
      x: textX,
      y: bottom + 12,
      size: 7,
      font,
      color: rgb(0.2, 0.2, 0.2),
    });
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
