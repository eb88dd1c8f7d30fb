// What a failed start quotes: the last lines of the embedded server's two logs in <data>/log.
//   postgresql-<Mon..Sun>.log  the logging collector's daily file (earlier starts too)
//   postmaster.log             this start only (each start truncates it): what the postmaster
//                              printed before the collector ran, without a log_line_prefix when
//                              it came from an early check (missing pg_control), and bind and
//                              shared-memory failures
// Each is quoted on its own: merged by timestamp, the early lines (no timestamp) fell out.
import fs from 'node:fs/promises';
import path from 'node:path';

export async function logTail(logDir: string, lines = 12): Promise<string> {
  const names = await fs.readdir(logDir).catch(() => [] as string[]);
  const daily = await Promise.all(names.filter((n) => n.startsWith('postgresql-'))
    .map(async (n) => ({ n, t: (await fs.stat(path.join(logDir, n)).catch(() => ({ mtimeMs: 0 }))).mtimeMs })));
  const newest = daily.sort((a, b) => b.t - a.t)[0]?.n;
  const parts: string[] = [];
  for (const name of [newest, 'postmaster.log']) {
    if (name === undefined) continue;
    const text = (await fs.readFile(path.join(logDir, name), 'utf8').catch(() => '')).trimEnd();
    if (text) parts.push(`[${name}]\n${text.split('\n').slice(-lines).join('\n')}`);
  }
  return parts.join('\n');
}

// True once the last lines of the logs contain `text`, false after ms.
export async function waitLogged(logDir: string, text: string, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 20))) {
    if ((await logTail(logDir, 40)).includes(text)) return true;
    if (Date.now() >= end) return false;
  }
}
