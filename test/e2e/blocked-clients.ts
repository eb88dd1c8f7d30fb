/** Polls INFO on a server until blocked_clients is n (a blocking command sent on another connection registered). */
import { RawClient } from './resp-client';

export async function blockedClients(port: number, n: number, pollMs = 10): Promise<void> {
  const c = await RawClient.connect(port);
  try {
    for (let i = 0; ; i++) {
      const info = String(await c.call('INFO', 'clients'));
      if (info.includes(`blocked_clients:${n}\r\n`)) return;
      if (i > 10_000 / pollMs) throw new Error(`blocked_clients never ${n}:\n${info}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  } finally {
    c.close();
  }
}
