// Sends an HL7 v2 file to the portal's MLLP listener and prints the ACK.
//   node send-mllp.mjs oru-r01.hl7 [host] [port]
// Node 20 or later; no packages needed. Segments in the file may end with CR or LF.
import fs from 'node:fs';
import net from 'node:net';

const [file = 'oru-r01.hl7', host = '127.0.0.1', port = '2575'] = process.argv.slice(2);
const message = fs.readFileSync(file).toString('latin1').replace(/\r?\n/g, '\r');
const VT = '\x0b';
const FS = '\x1c';
const CR = '\r';

const socket = net.connect({ host, port: Number(port) }, () => {
  socket.write(Buffer.from(`${VT}${message}${FS}${CR}`, 'latin1'));
});
let answer = Buffer.alloc(0);
socket.on('data', (data) => {
  answer = Buffer.concat([answer, data]);
  const end = answer.indexOf(0x1c);
  if (end < 0) return;
  // The ACK comes back in the character set of the message (MSH-18).
  console.log(answer.subarray(1, end).toString('utf8').replace(/\r/g, '\n'));
  socket.end();
});
socket.on('error', (error) => {
  console.error(`could not send: ${error.message}`);
  process.exitCode = 1;
});
