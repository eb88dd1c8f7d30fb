/**
 * INFO memory's scripting lines, in Redis 7.0's names and order. Scripts and libraries live in
 * Postgres and every instance runs them, so the counts are Postgres's (after a SCRIPT FLUSH on any
 * instance: 0 everywhere); the byte counts are the stored bodies' sizes. The Lua VMs' own memory
 * (used_memory_vm_*, used_memory_lua) is not measured (a state per engine thread, each capped by
 * its allocator: docs/scripting.md "Limits"): 0.
 */
import { RespError } from '../../reply';
import type { Session } from '../../session';
import { engineOf } from './engine-of';
import { currentLibraries } from './library-change';
import { kScriptingSql } from './sql';

/** INFO answers while Postgres is down (the primary's sections say why): zeros after this long */
const kWaitMs = 1000;

export async function scriptingMemoryFields(s: Session): Promise<[string, number | string][]> {
  const engine = engineOf(s);
  const asked = Promise.all([
    s.server.store.exec(s, kScriptingSql.sizes, [], (rows) => rows[0].map(Number)),
    currentLibraries(s, engine),
  ]);
  let timer: NodeJS.Timeout | undefined;
  const got = await Promise.race([asked, new Promise<undefined>((r) => { timer = setTimeout(() => r(undefined), kWaitMs); })]);
  clearTimeout(timer);
  const ok = got !== undefined && !(got[0] instanceof RespError) && got[1] === undefined;
  const [scripts, scriptBytes, functionBytes] = ok ? got[0] as number[] : [0, 0, 0];
  const libs = ok ? engine.listLibraries() : [];
  const functions = libs.reduce((n, l) => n + l.functions.length, 0);
  return [
    ['used_memory_lua', 0], ['used_memory_vm_eval', 0], ['used_memory_lua_human', '0B'], ['used_memory_scripts_eval', scriptBytes],
    ['number_of_cached_scripts', scripts], ['number_of_functions', functions], ['number_of_libraries', libs.length],
    ['used_memory_vm_functions', 0], ['used_memory_vm_total', 0], ['used_memory_vm_total_human', '0B'],
    ['used_memory_functions', functionBytes], ['used_memory_scripts', scriptBytes + functionBytes],
    ['used_memory_scripts_human', human(scriptBytes + functionBytes)],
  ];
}

function human(n: number): string {
  if (n < 1024) return `${n}B`;
  return n < 1024 * 1024 ? `${(n / 1024).toFixed(2)}K` : `${(n / 1024 / 1024).toFixed(2)}M`;
}
