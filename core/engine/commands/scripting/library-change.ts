/**
 * FUNCTION LOAD / DELETE / FLUSH / RESTORE: one change of the library set everywhere. In one
 * transaction on a script connection: lock function_version, bring this process's engine to
 * Postgres's set, apply the change to the engine (which checks it: names, code, collisions), write
 * the engine's set back and bump the version. Changes on any instance thus happen one at a time,
 * each on top of the last; a change that fails leaves both as they were.
 */
import type { KeyStore, Rows } from '../../key-store';
import { RespError, type Reply } from '../../reply';
import type { Session } from '../../session';
import type { ScriptEngine } from '../../scripting/engine';
import { engineOf } from './engine-of';
import { busyReply } from './busy';
import { applyLibraries, librarySet, withLibraryStore, type LibrarySet } from './libraries';
import { kScriptingSql } from './sql';

async function rows(s: Session, store: KeyStore, stmt: { text: string }, values: unknown[] = []): Promise<Rows | RespError> {
  const r = await store.exec(s, stmt, values, (rs) => rs as unknown as Reply);
  return r instanceof RespError ? r : r as unknown as Rows;
}

/** The libraries Postgres holds now (a statement on the client's lane). */
export async function readLibraries(s: Session, store: KeyStore = s.server.store): Promise<LibrarySet | RespError> {
  const r = await rows(s, store, kScriptingSql.libraries);
  return r instanceof RespError ? r : librarySet(r);
}

/** Before reading the engine's libraries (FUNCTION LIST, DUMP, STATS, FCALL's lookup errors). */
export async function currentLibraries(s: Session, engine: ScriptEngine): Promise<RespError | undefined> {
  const set = await readLibraries(s);
  if (set instanceof RespError) return set;
  if (engine.libraryVersion() >= set.version) return undefined;
  await withLibraryStore(engine, async () => {
    await applyLibraries(engine, set.libs);
    return { version: set.version, value: undefined };
  });
  return undefined;
}

/** `mutate` changes the engine and answers; an error reply must leave the engine as it found it. */
export function changeLibraries(s: Session, mutate: (engine: ScriptEngine) => Promise<Reply>): Promise<Reply> {
  const engine = engineOf(s);
  const done = withLibraryStore(engine, async () => {
    let version = -1;
    // like a call: waiting for a script connection that runaway calls hold past busy-reply-threshold
    // answers BUSY, as Redis refuses FUNCTION LOAD/DELETE/FLUSH during a timed-out script (before, it
    // waited with no reply until a KILL: the 7.0 suite's unit/type/list stalled in its FUNCTION FLUSH)
    const out = await s.server.store.atomic(s, { busy: () => busyReply(s) }, async ({ store }) => {
      const locked = await rows(s, store, kScriptingSql.lockVersion);
      const set = await readLibraries(s, store);
      if (locked instanceof RespError) return { reply: locked };
      if (set instanceof RespError) return { reply: set };
      await applyLibraries(engine, set.libs);
      version = set.version;
      const reply = await mutate(engine);
      if (reply instanceof RespError) return { reply };
      const written = await writeLibraries(s, store, engine);
      if (written instanceof RespError) return { reply: written };
      version = written;
      return { reply };
    });
    if (out instanceof RespError) return { version: -1, value: out };
    return { version, value: out.reply };
  });
  // on a script connection: the client's later commands (an FCALL) wait for it
  s.holdWhile?.(done);
  return done;
}

async function writeLibraries(s: Session, store: KeyStore, engine: ScriptEngine): Promise<number | RespError> {
  const flushed = await rows(s, store, kScriptingSql.flushLibraries);
  if (flushed instanceof RespError) return flushed;
  for (const lib of engine.listLibraries()) {
    const put = await rows(s, store, kScriptingSql.putLibrary, [lib.name, lib.code]);
    if (put instanceof RespError) return put;
  }
  const bumped = await rows(s, store, kScriptingSql.bumpVersion);
  return bumped instanceof RespError ? bumped : Number(bumped[0][0]);
}
