/**
 * Function libraries live in Postgres (function_libraries, and function_version bumped by every
 * change); each process's engine holds a copy with the version it came from. Whoever needs the
 * libraries (FCALL in its first statement, FUNCTION LIST/DUMP/STATS, a change) reads the version
 * and, when the process holds an older one, brings the engine to the set Postgres has:
 *
 *   FUNCTION LOAD on instance A ──commit──▶ version 8
 *   FCALL on instance B: begin (sql.ts) → 8 > 7 held ──▶ read the libraries (same snapshot), replace
 *                                                       what differs, delete what is gone → holds 8
 *
 * One worker thread of a process changes the store at a time (the addon's flag): two applying
 * different snapshots interleaved would leave a mix under either number.
 */
import type { Rows } from '../../key-store';
import type { ScriptEngine } from '../../scripting/engine';

export interface LibraryRow { name: string; code: Buffer }
export interface LibrarySet { version: number; libs: LibraryRow[] }

/** kScriptingSql.libraries' rows → the set (a LEFT JOIN: one row with a null name when empty) */
export function librarySet(rows: Rows): LibrarySet {
  const version = rows.length > 0 ? Number(rows[0][0]) : 0;
  const libs = rows.filter((r) => r[1] !== null).map((r) => ({ name: r[1] as string, code: r[2] as Buffer }));
  return { version, libs };
}

const pause = (): Promise<void> => new Promise((r) => setTimeout(r, 1));

/** Runs `change` holding the process's right to change the library store; it returns the version the store then holds. */
export async function withLibraryStore<T>(engine: ScriptEngine, change: () => Promise<{ version: number; value: T }>): Promise<T> {
  while (!engine.librarySyncBegin()) await pause();
  let version = -1;
  try {
    const r = await change();
    version = r.version;
    return r.value;
  } finally {
    engine.librarySyncEnd(version);
  }
}

/** Brings the engine to at least `want`, reading the set with `fetch` if it holds less. */
export async function syncLibraries(engine: ScriptEngine, want: number, fetch: () => PromiseLike<LibrarySet>): Promise<void> {
  if (engine.libraryVersion() >= want) return;
  await withLibraryStore(engine, async () => {
    const held = engine.libraryVersion();
    if (held >= want) return { version: held, value: undefined };
    const set = await fetch();
    await applyLibraries(engine, set.libs);
    return { version: set.version, value: undefined };
  });
}

/** Makes the engine hold exactly these libraries (call with the store's right held). */
export async function applyLibraries(engine: ScriptEngine, libs: LibraryRow[]): Promise<void> {
  const held = new Map(engine.listLibraries().map((l) => [l.name, l.code]));
  const wanted = new Set(libs.map((l) => l.name));
  // deletions first: a function may have moved from a deleted library to another one
  for (const name of held.keys()) if (!wanted.has(name)) engine.deleteLibrary(name);
  for (const l of libs) {
    if (held.get(l.name)?.equals(l.code)) continue;
    await engine.loadLibrary(l.code, true);
  }
}
