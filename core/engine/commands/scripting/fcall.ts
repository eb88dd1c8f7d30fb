/**
 * FCALL function numkeys [key …] [arg …] / FCALL_RO — call a library function as one atomic
 * Postgres transaction (./call.ts). Its first statement also reads the library version, so a
 * library loaded on another instance is here before the call looks the function up.
 * https://redis.io/commands/fcall/
 */
import { RespError, type Reply } from '../../reply';
import type { Rows } from '../../key-store';
import type { ScriptEngine } from '../../scripting/engine';
import { defineCommand } from '../define';
import type { CommandFlag } from '../spec';
import { inOrder, runCall } from './call';
import { engineOf } from './engine-of';
import { kWriteFlagRo } from './eval';
import { librarySet, syncLibraries } from './libraries';
import { currentLibraries } from './library-change';
import { splitKeys } from './numkeys';
import { kScriptingSql } from './sql';

const kNotFound = new RespError('ERR Function not found');

/** The registered name of a function: Redis looks names up ignoring case. */
function functionName(engine: ScriptEngine, fn: string): string | undefined {
  if (engine.functionFlags(fn) !== null) return fn;
  const lower = fn.toLowerCase();
  for (const lib of engine.listLibraries()) for (const f of lib.functions) if (f.name.toLowerCase() === lower) return f.name;
  return undefined;
}

function fcallCommand(name: string, ro: boolean) {
  const flags: CommandFlag[] = [...(ro ? ['readonly' as const] : []), 'noscript', 'stale', 'skip_monitor', 'no_mandatory_keys'];
  return defineCommand({
    name, arity: -3, flags, keys: { first: 0, last: 0, step: 0, numkeysAt: 2 }, acl: ['slow', 'scripting'],
    group: 'scripting', since: '7.0.0', summary: ro ? 'Invoke a read-only function' : 'Invoke a function',
    complexity: 'Depends on the function that is executed.',
    run: inOrder(async (s, argv, queued): Promise<Reply> => {
      const engine = engineOf(s);
      let fn = argv[1].toString();
      const split = splitKeys(argv, true);
      if (split instanceof RespError) {
        // Redis looks the function up before it reads numkeys
        const failed = await currentLibraries(s, engine);
        return failed ?? (functionName(engine, fn) === undefined ? kNotFound : split);
      }
      const { keys, args } = split;
      return runCall(s, {
        keys, libraries: true, readOnly: ro, fn, queued,
        async run(host, begun, store) {
          await syncLibraries(engine, Number(begun[0]?.[0] ?? 0), async () =>
            librarySet(await store.exec(s, kScriptingSql.libraries, [], (rows) => rows as never) as unknown as Rows));
          fn = functionName(engine, fn) ?? fn;
          const fnFlags = engine.functionFlags(fn);
          if (fnFlags === null) return kNotFound.bytes;
          const noWrites = fnFlags.includes('no-writes');
          if (ro && !noWrites) return kWriteFlagRo.bytes;
          host.readOnly = ro || noWrites;
          return engine.fcall({ fn, keys, args, proto: s.proto }, host);
        },
      });
    }),
  });
}

export const fcall = fcallCommand('fcall', false);
export const fcallRo = fcallCommand('fcall_ro', true);
