/**
 * SCRIPT KILL / FUNCTION KILL across the instances on one schema. This process's calls are
 * stopped at once (the engine's running list is process-wide); when none of them could be, the
 * calls of every instance are read from pg_locks (each call's transaction holds a shared
 * advisory lock of its kind, and another once it wrote: ./functions.ts). For a killable one
 * elsewhere, a kill notice goes over the bus (core/bus: NOTIFY, heard by every instance's
 * primary, which stops its own killable calls of that kind), and the answer waits until each such
 * call has ended (+OK) or has written meanwhile (then UNKILLABLE if none ended): the notice and
 * the call's first write race, and Redis never answers OK for a script that goes on running. The
 * kill is repeated, here and over the bus, while it waits: a call holds its lock a moment before
 * its Lua code runs (and can be killed); the lock may be this process's own call.
 *
 *   a killable call here or elsewhere   +OK
 *   only calls that wrote               -UNKILLABLE Sorry the script already executed write commands…
 *   only calls of the other kind        -BUSY … You can only call FUNCTION KILL / SCRIPT KILL …
 *   none                                -NOTBUSY No scripts in execution right now.
 */
import { kKill, kKillReplies, type KillResult } from '../../scripting/errors';
import { Raw, RespError, type Reply } from '../../reply';
import type { Rows } from '../../key-store';
import type { Session } from '../../session';
import { engineOf } from './engine-of';
import { kScriptingSql } from './sql';

type Kind = 'script' | 'function';

/** How long a KILL waits for the calls it asked another instance to stop (an instance that
 * does not hear the notice: its bus connection is down). A stopped call ends within a few ms. */
const kConfirmMs = 5000;

/** The better of two findings: a kill, then UNKILLABLE, then the other kind, then none. */
const kRank: Record<KillResult, number> = { [kKill.ok]: 3, [kKill.unkillable]: 2, [kKill.wrongKind]: 1, [kKill.notBusy]: 0 };
const better = (x: KillResult, y: KillResult): KillResult => (kRank[x] >= kRank[y] ? x : y);

/** A running call: its kind (1 EVAL, 2 FCALL), 1 once it wrote, its transaction */
type Call = [kind: number, written: number, call: string];

/** What the calls of every instance say about a KILL of kind, and the killable calls. */
export function killVerdict(kind: Kind, rows: readonly Call[]): { found: KillResult; killable: Set<string> } {
  const want = kind === 'function' ? 2 : 1;
  let found: KillResult = kKill.notBusy;
  const killable = new Set<string>();
  for (const [k, written, call] of rows) {
    const r = k !== want ? kKill.wrongKind : written === 1 ? kKill.unkillable : kKill.ok;
    if (r === kKill.ok) killable.add(call);
    found = better(r, found);
  }
  return { found, killable };
}

async function running(s: Session): Promise<Call[] | RespError> {
  const calls = (rows: Rows): Call[] => rows.map(([k, w, c]) => [Number(k), w === true ? 1 : 0, String(c)]);
  return (await s.server.store.exec(s, kScriptingSql.running, [], calls)) as Call[] | RespError;
}

export async function killCalls(s: Session, kind: Kind): Promise<Reply> {
  const engine = engineOf(s);
  const local = engine.killLocal(kind);
  if (local === kKill.ok) return new Raw(kKillReplies[kind][local]);
  let rows = await running(s);
  if (rows instanceof RespError) return rows;
  const { found, killable } = killVerdict(kind, rows);
  if (found !== kKill.ok) return new Raw(kKillReplies[kind][better(found, local)]);
  s.server.bus.killRemote(kind);
  for (let wait = 1, end = Date.now() + kConfirmMs; Date.now() < end; wait = Math.min(wait * 2, 50)) {
    await new Promise((r) => setTimeout(r, wait));
    rows = await running(s);
    if (rows instanceof RespError) return rows;
    let left = 0;
    let wrote = 0;
    for (const [, written, call] of rows) {
      if (!killable.has(call)) continue;
      if (written === 1) wrote++;
      else left++;
    }
    if (left === 0) return new Raw(kKillReplies[kind][wrote < killable.size ? kKill.ok : kKill.unkillable]);
    // again, here too: a call whose lock was seen may not have reached its engine's running list yet
    engine.killLocal(kind);
    s.server.bus.killRemote(kind);
  }
  return new Raw(kKillReplies[kind][kKill.ok]); // asked; its instance did not answer in time
}
