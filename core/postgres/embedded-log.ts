// What a failed start quotes: the last lines of the embedded server's logs in <data>/log, the
// logging collector's daily file and postmaster.log (what the postmaster printed before the
// collector took over: bind and shared-memory failures).
import fs from 'node:fs/promises';
import path from 'node:path';

export async function logTail(logDir: string, lines = 12): Promise<string> {
  const names = (await fs.readdir(logDir).catch(() => [] as string[])).map((n) => path.join(logDir, n));
  const dated = await Promise.all(names.map(async (f) => ({ f, t: (await fs.stat(f)).mtimeMs })));
  const newest = dated.sort((a, b) => b.t - a.t).slice(0, 2).reverse();
  const texts = await Promise.all(newest.map(({ f }) => fs.readFile(f, 'utf8').catch(() => '')));
  // One start writes to both (postmaster.log until the collector runs, then the daily file), and
  // the daily file also holds earlier starts: order lines by the timestamp that starts them
  // (log_line_prefix '%m [%p] '), a line without one staying after the line before it.
  const timed = texts.flatMap((text) => {
    let ts = '';
    return text.split('\n').filter((l) => l.trim()).map((line) => ({ ts: (ts = kTimestamp.exec(line)?.[0] ?? ts), line }));
  });
  timed.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
  return timed.slice(-lines).map((t) => t.line).join('\n');
}

const kTimestamp = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}/;

// True once the last lines of the logs contain `text`, false after ms.
export async function waitLogged(logDir: string, text: string, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 20))) {
    if ((await logTail(logDir, 40)).includes(text)) return true;
    if (Date.now() >= end) return false;
  }
}
