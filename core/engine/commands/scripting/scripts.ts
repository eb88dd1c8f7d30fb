/**
 * The script cache: bodies by SHA1 in this process's engine, and in Postgres for every instance
 * (EVAL stores its body in its transaction's first statement, SCRIPT LOAD at once). An EVALSHA
 * this engine does not know reads Postgres before answering NOSCRIPT; one it knows is checked
 * against Postgres in its transaction's first statement (a SCRIPT FLUSH on another instance).
 */
import type { ScriptFlag } from '../../scripting/errors';
import type { ScriptEngine } from '../../scripting/engine';
import { RespError, type Reply } from '../../reply';
import type { Session } from '../../session';
import { kScriptingSql } from './sql';

export const kNoScript = new RespError('NOSCRIPT No matching script. Please use EVAL.');

/** A known script's flags: from the engine, else from Postgres (then compiled here); null if nowhere. */
export async function scriptFlagsBySha(s: Session, engine: ScriptEngine, sha: string): Promise<ScriptFlag[] | null> {
  const flags = engine.scriptFlags(sha);
  if (flags !== null) return flags;
  const body = await s.server.store.exec(s, kScriptingSql.body, [sha], (rows): Reply => (rows.length > 0 ? rows[0][0] as Buffer : null));
  if (!Buffer.isBuffer(body)) return null;
  const loaded = engine.loadScript(body);
  return 'error' in loaded ? null : loaded.flags;
}

/** EVAL's body: its sha and flags, compiled if new, or the compile error. */
export function evalBody(engine: ScriptEngine, body: Buffer): { sha: string; flags: ScriptFlag[] } | RespError {
  const sha = engine.sha1hex(body);
  const flags = engine.scriptFlags(sha);
  if (flags !== null) return { sha, flags };
  const loaded = engine.loadScript(body);
  if ('error' in loaded) return new RespError(loaded.error);
  return { sha, flags: loaded.flags };
}
