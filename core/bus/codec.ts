/**
 * What travels on the bus, and how it is written into a Postgres notification (NOTIFY payloads are
 * text, < 8000 bytes, no NUL): one line per notification head, then one line per item, bytes in
 * base64 (4/3 of the size, and Buffer#toString('base64') is ~1 GB/s here).
 *
 *   D<instance> <seq>\n m<chan> <msg>\n s<chan> <msg>\n w<db> <key>[ <tokens>]\n r<id>   data
 *   S<instance> <seq> <to> <token>,<token>…                                   woken clients served
 *   I<instance> <seq> +|-<interest key>                                         interest change
 *   A<instance> <seq> <to> <acked seq>                                           interest applied
 *   H<instance> <seq>    X<instance> <seq> <gone instance>                       hello, gone
 *   K<instance> <seq> s|f                                                         SCRIPT / FUNCTION KILL
 *   U<instance> <seq> <version>                               ACL users changed (acl_version)
 *
 * <seq> counts every notification an instance sends: no two payloads are ever identical (Postgres
 * delivers identical channel+payload pairs of one transaction once), and a receiver that sees a
 * gap in an instance's sequence knows how many notifications it missed (a reconnect).
 */

/** m: PUBLISH, s: SPUBLISH, w: a key a blocked client may wait on became non-empty */
export type ItemKind = 'm' | 's' | 'w';

/**
 * One message on the bus. m/s: a = channel, b = message; w: a = key, db = its database, b empty
 * or the tokens of pushes waiting for the clients it wakes to be served (ASCII, comma-separated:
 * the woken instance answers them with an S notification); from: the sending instance (received).
 */
export interface BusItem {
  kind: ItemKind;
  a: Buffer;
  b: Buffer;
  db: number;
  from?: string;
}

/** Room for the head line and margin under Postgres's 8000-byte limit. */
export const kMaxPayload = 7900;

export function encodeItem(it: BusItem): string {
  if (it.kind === 'w') return it.b.length === 0 ? `w${it.db} ${it.a.toString('base64')}` : `w${it.db} ${it.a.toString('base64')} ${it.b.toString('latin1')}`;
  return `${it.kind}${it.a.toString('base64')} ${it.b.toString('base64')}`;
}

export function decodeItem(line: string): BusItem | undefined {
  const kind = line[0];
  const sp = line.indexOf(' ');
  if (sp < 0 || (kind !== 'm' && kind !== 's' && kind !== 'w')) return undefined;
  if (kind === 'w') {
    const sp2 = line.indexOf(' ', sp + 1);
    if (sp2 < 0) return { kind, db: Number(line.slice(1, sp)), a: Buffer.from(line.slice(sp + 1), 'base64'), b: kEmpty };
    return { kind, db: Number(line.slice(1, sp)), a: Buffer.from(line.slice(sp + 1, sp2), 'base64'), b: Buffer.from(line.slice(sp2 + 1), 'latin1') };
  }
  return { kind, db: 0, a: Buffer.from(line.slice(1, sp), 'base64'), b: Buffer.from(line.slice(sp + 1), 'base64') };
}

const kEmpty = Buffer.alloc(0);

/** Items as several payloads, each under kMaxPayload with its head; `large` gets each item whose
 * line alone does not fit (it goes through the messages table), in order among the others. */
export function packItems(items: readonly BusItem[], head: () => string): { text?: string; large?: BusItem }[] {
  const out: { text?: string; large?: BusItem }[] = [];
  let cur = '';
  const flush = () => {
    if (cur !== '') out.push({ text: cur });
    cur = '';
  };
  for (const it of items) {
    const line = encodeItem(it);
    if (line.length + 60 > kMaxPayload) {
      flush();
      out.push({ large: it });
      continue;
    }
    if (cur !== '' && cur.length + 1 + line.length > kMaxPayload) flush();
    cur = cur === '' ? `${head()}\n${line}` : `${cur}\n${line}`;
  }
  flush();
  return out;
}

/** Parsed head of any notification: type letter, sender, sequence, and the rest of the text. */
export interface Head {
  type: string;
  instance: string;
  seq: number;
  rest: string;
}

export function parseHead(payload: string): Head | undefined {
  const nl = payload.indexOf('\n');
  const line = nl < 0 ? payload : payload.slice(0, nl);
  const sp = line.indexOf(' ');
  if (sp < 2) return undefined;
  const sp2 = line.indexOf(' ', sp + 1);
  const seq = Number(line.slice(sp + 1, sp2 < 0 ? undefined : sp2));
  if (!Number.isSafeInteger(seq)) return undefined;
  return { type: line[0]!, instance: line.slice(1, sp), seq, rest: nl < 0 ? (sp2 < 0 ? '' : line.slice(sp2 + 1)) : payload.slice(nl + 1) };
}
