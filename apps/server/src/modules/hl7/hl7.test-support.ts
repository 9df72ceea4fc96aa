import net from 'node:net';
import tls from 'node:tls';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/* Real-looking HL7 v2 messages in the styles of several laboratory systems, and an MLLP client. */

export const VT = 0x0b;
export const FS = 0x1c;
export const CR = 0x0d;

/** A one-page PDF report with a line of text, as a laboratory system would attach. */
export async function reportPdf(text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.setCreationDate(new Date('2026-11-20T12:00:00Z'));
  doc.setModificationDate(new Date('2026-11-20T12:00:00Z'));
  doc.addPage([595, 842]).drawText(text, { x: 50, y: 780, size: 12, font });
  return Buffer.from(await doc.save());
}

const seg = (...lines: string[]) => lines.join('\r');

export interface SampleOptions {
  controlId: string;
  facility?: string;
  protocol?: string;
  pdf?: Buffer;
  password?: string;
}

/**
 * Style 1: a hospital LIS through an interface engine, HL7 2.5.1 in UTF-8, ORC-4 as the
 * protocol, two OBR groups (a blood count with NM values, units, ranges and flags, and a
 * glucose with its PDF report as ED base64), the requester as `CRM&SP`.
 */
export function utf8LabMessage(o: SampleOptions): Buffer {
  const facility = o.facility ?? 'LABCENTRAL';
  const protocol = o.protocol ?? 'PRT-1001';
  const pdf64 = (o.pdf ?? Buffer.from('%PDF-1.4\n%%EOF\n')).toString('base64');
  return Buffer.from(
    seg(
      `MSH|^~\\&|LIS-CENTRAL|${facility}|PORTAL|RESULTADOS|20261118103000-0300||ORU^R01^ORU_R01|${o.controlId}|P|2.5.1|||AL|NE|BRA|UNICODE UTF-8`,
      'PID|1||77001^^^LABCENTRAL^MR~52998224725^^^^CPF||Conceição^João^Batista||19800412|M|||Rua das Flores 10^^São Paulo^SP^01000-000||^PRN^CP^^55^11^987654321~^NET^Internet^joao.conceicao@example.com',
      'PV1|1|O',
      ...(o.password ? [`ZPW|1|${o.password}`] : []),
      `ORC|RE|PED-1|HMG-1|${protocol}|CM||||20261118090000-0300|||12345^Silva^Ana^^^Dra.^^^CRM&SP`,
      'OBR|1|PED-1|HMG-1|HMG^Hemograma completo^L|||20261118090000-0300|||||||||12345^Silva^Ana^^^Dra.^^^CRM&SP||||||20261118103000-0300|||F',
      'OBX|1|NM|HB^Hemoglobina^L||13.5|g/dL^g/dL^UCUM|12.0-16.0|N|||F',
      'OBX|2|NM|HT^Hematócrito^L||47,9|%|36-46|H|||F',
      'NTE|1||Valor confirmado em segunda dosagem.',
      'OBX|3|NM|LEUCO^Leucócitos^L||3200|/mm3|4000 - 11000|L|||F',
      `ORC|RE|PED-2|GLI-1|${protocol}|CM||||20261118090000-0300|||12345^Silva^Ana^^^Dra.^^^CRM&SP`,
      'OBR|2|PED-2|GLI-1|GLI^Glicose^L|||20261118090000-0300|||||||||12345^Silva^Ana^^^Dra.^^^CRM&SP||||||20261118103000-0300|||F',
      'OBX|1|NM|GLI^Glicose^L||92|mg/dL|70-99|N|||F',
      `OBX|2|ED|PDF^Laudo em PDF^L||^application^pdf^Base64^${pdf64}||||||F`,
    ),
    'utf8',
  );
}

/**
 * Style 2: an older LIS writing HL7 2.3 in ISO 8859-1, the protocol in PV1-19, the report as
 * formatted text with escape sequences and comments (no PDF: the portal renders one), the
 * requester as `CRM-RJ`, the protocol password in a ZPW segment.
 */
export function latin1TextMessage(o: SampleOptions): Buffer {
  const facility = o.facility ?? 'LABCENTRAL';
  const protocol = o.protocol ?? 'ATD-2002';
  return Buffer.from(
    seg(
      `MSH|^~\\&|LABSYS|${facility}|PORTAL||20261119080000||ORU^R01|${o.controlId}|P|2.3|||||BRA|8859/1`,
      'PID|1||88002||Conceição^Maria José||19750301|F|Conceição^Zezé||||(21) 99876-5432||||||11144477735',
      `PV1|1|O|||||||||||||||||${protocol}`,
      `ZPW|1|${o.password ?? 'senha-hl7'}`,
      'OBR|1|A-1|USG-77|USG^Ultrassonografia de abdome total|||20261118150000|||||||||54321^Souza^Carlos^^^Dr.^^^CRM-RJ||||||20261119075500||US|F',
      'OBX|1|FT|LAUDO^Laudo||Fígado de dimensões normais.\\.br\\Vesícula: sem cálculos \\F\\ paredes finas.\\.br\\Rins: relação 1\\S\\2 \\T\\ ecogenicidade preservada; caminho C:\\E\\exames.||||||F',
      'NTE|1||Exame realizado em jejum de 8 horas.',
    ),
    'latin1',
  );
}

/**
 * Style 3: a batch file (FHS/BHS) from a regional laboratory with two patients, HL7 2.4 in
 * ASCII, the requester as `CRMSP`, structured numeric (SN) values.
 */
export function batchMessage(o: { controlIds: [string, string]; facility?: string; protocols?: [string, string] }) {
  const facility = o.facility ?? 'LABCENTRAL';
  const [p1, p2] = o.protocols ?? ['LOTE-1', 'LOTE-2'];
  const message = (controlId: string, protocol: string, patient: string, id: string, value: string) =>
    seg(
      `MSH|^~\\&|REGLAB|${facility}|PORTAL||20261120060000||ORU^R01|${controlId}|P|2.4`,
      `PID|1||${id}^^^REGLAB^MR||${patient}||19900101|F`,
      `ORC|RE||${protocol}-TSH|${protocol}`,
      `OBR|1||${protocol}-TSH|TSH^Hormonio tireoestimulante|||20261119070000|||||||||777^Lima^Paula^^^^^^CRMSP||||||20261120055000|||F`,
      `OBX|1|SN|TSH^TSH||${value}|uUI/mL|0.4-4.0||||F`,
      `OBX|2|SN|TIT^Titulo ANA||^1^:^160||<1:80|A|||F`,
    );
  return Buffer.from(
    seg(
      `FHS|^~\\&|REGLAB|${facility}|PORTAL||20261120060000`,
      `BHS|^~\\&|REGLAB|${facility}|PORTAL||20261120060000`,
      message(o.controlIds[0], p1, 'Pereira^Ana', 'R-1', '^2.15'),
      message(o.controlIds[1], p2, 'Ramos^Beatriz', 'R-2', '<^0.01'),
      'BTS|2',
      'FTS|1',
    ),
    'ascii',
  );
}

/** An order status update (ORM^O01): the exam is collected and in progress. */
export function ormStatusMessage(o: SampleOptions & { status: string }): Buffer {
  const facility = o.facility ?? 'LABCENTRAL';
  const protocol = o.protocol ?? 'PRT-3003';
  return Buffer.from(
    seg(
      `MSH|^~\\&|LIS-CENTRAL|${facility}|PORTAL||20261121090000-0300||ORM^O01|${o.controlId}|P|2.5`,
      'PID|1||99003^^^LABCENTRAL^MR||Almeida^Carla||19880808|F',
      `ORC|SC|PED-9|TSH-9|${protocol}|${o.status}||||20261121085000-0300`,
      'OBR|1|PED-9|TSH-9|TSH^TSH ultrassensível|||20261121085000-0300|||||||||222^Costa^Rui^^^^^^CRM&MG',
    ),
    'utf8',
  );
}

/** Frames a message for MLLP. */
export function mllpFrame(payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([VT]), payload, Buffer.from([FS, CR])]);
}

/** An MLLP connection that sends one message at a time and waits for its ACK. */
export class MllpClient {
  private pending = Buffer.alloc(0);
  private waiter: ((ack: Buffer | null) => void) | undefined;
  private closed = false;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (data: Buffer) => {
      this.pending = Buffer.concat([this.pending, data]);
      const start = this.pending.indexOf(VT);
      const end = this.pending.indexOf(FS, start + 1);
      if (start < 0 || end < 0) return;
      const ack = this.pending.subarray(start + 1, end);
      this.pending = this.pending.subarray(end + 2);
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter?.(ack);
    });
    const gone = () => {
      this.closed = true;
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter?.(null);
    };
    socket.on('error', gone);
    socket.on('close', gone);
  }

  static async connect(port: number, options: { tls?: tls.ConnectionOptions } = {}): Promise<MllpClient> {
    const socket: net.Socket = options.tls
      ? tls.connect({ host: '127.0.0.1', port, ...options.tls })
      : net.connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => {
      socket.once(options.tls ? 'secureConnect' : 'connect', () => resolve());
      socket.once('error', reject);
    });
    return new MllpClient(socket);
  }

  /** The ACK's bytes, or null when the connection closed first. */
  send(message: Buffer): Promise<Buffer | null> {
    if (this.closed) return Promise.resolve(null);
    const answered = new Promise<Buffer | null>((resolve) => (this.waiter = resolve));
    this.socket.write(mllpFrame(message));
    return answered;
  }

  close(): void {
    this.socket.end();
  }
}

/** Sends each message on one connection, one after the other, and returns the ACKs in order. */
export async function sendMllp(
  port: number,
  messages: Buffer[],
  options: { tls?: tls.ConnectionOptions } = {},
): Promise<Buffer[]> {
  const client = await MllpClient.connect(port, options);
  const acks: Buffer[] = [];
  try {
    for (const message of messages) {
      const ack = await client.send(message);
      if (!ack) throw new Error('the MLLP connection closed before the ACK');
      acks.push(ack);
    }
  } finally {
    client.close();
  }
  return acks;
}

/** An ACK's segments as field arrays, by segment name. */
export function ackFields(ack: Buffer | string, encoding: BufferEncoding = 'utf8'): Record<string, string[][]> {
  const text = typeof ack === 'string' ? ack : ack.toString(encoding);
  const out: Record<string, string[][]> = {};
  for (const line of text.split('\r').filter(Boolean)) {
    const fields = line.split('|');
    (out[fields[0]!] ??= []).push(fields);
  }
  return out;
}
