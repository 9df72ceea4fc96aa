import http from 'node:http';

export interface SmsMessage {
  to: string;
  channel: string;
  text: string;
}

export interface SmsSink {
  url: string;
  messages: SmsMessage[];
  /** The 6-digit code of the newest message to `to` after index `after`. */
  waitForCode: (to: string, after: number) => Promise<string>;
  close: () => Promise<void>;
}

/** A real HTTP endpoint standing in for the SMS/WhatsApp provider of contract 1 (SMS_WEBHOOK_URL). */
export async function startSmsSink(): Promise<SmsSink> {
  const messages: SmsMessage[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      try {
        messages.push(JSON.parse(body) as SmsMessage);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
  return {
    url: `http://127.0.0.1:${port}/sms`,
    messages,
    async waitForCode(to, after) {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const message = messages
          .slice(after)
          .reverse()
          .find((m) => m.to === to);
        const code = message && /\b(\d{6})\b/.exec(message.text)?.[1];
        if (code) return code;
        if (Date.now() > deadline) throw new Error(`no code reached ${to} (${messages.length} messages)`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
