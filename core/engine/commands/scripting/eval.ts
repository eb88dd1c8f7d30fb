/**
 * EVAL script numkeys [key …] [arg …] / EVALSHA sha1 … / EVAL_RO / EVALSHA_RO — run a Lua script
 * as one atomic Postgres transaction (./call.ts); the _RO forms and `#!lua flags=no-writes` refuse
 * write commands inside.
 * https://redis.io/commands/eval/
 */
import { RespError, type Reply } from '../../reply';
import { defineCommand } from '../define';
import type { CommandFlag } from '../spec';
import { inOrder, runCall, scriptKnown } from './call';
import { engineOf } from './engine-of';
import { splitKeys } from './numkeys';
import { evalBody, kNoScript, scriptFlagsBySha } from './scripts';

export const kWriteFlagRo = new RespError('ERR Can not execute a script with write flag using *_ro command.');

function evalCommand(name: string, bySha: boolean, ro: boolean) {
  const flags: CommandFlag[] = [...(ro ? ['readonly' as const] : []), 'noscript', 'stale', 'skip_monitor', 'no_mandatory_keys'];
  return defineCommand({
    name, arity: -3, flags, keys: { first: 0, last: 0, step: 0, numkeysAt: 2 }, acl: ['slow', 'scripting'],
    group: 'scripting', since: ro ? '7.0.0' : '2.6.0',
    summary: ro ? 'Execute a read-only Lua script server side' : 'Execute a Lua script server side',
    complexity: 'Depends on the script that is executed.',
    run: inOrder(async (s, argv, queued): Promise<Reply> => {
      // EVALSHA answers NOSCRIPT for a malformed sha before looking at numkeys (evalShaCommand)
      if (bySha && argv[1].length !== 40) return kNoScript;
      const split = splitKeys(argv);
      if (split instanceof RespError) return split;
      const engine = engineOf(s);
      let sha: string;
      let flags;
      if (bySha) {
        sha = argv[1].toString('latin1').toLowerCase();
        flags = await scriptFlagsBySha(s, engine, sha);
        if (flags === null) return kNoScript;
      } else {
        const b = evalBody(engine, argv[1]);
        if (b instanceof RespError) return b;
        ({ sha, flags } = b);
      }
      const compat = flags.includes('eval-compat');
      const noWrites = flags.includes('no-writes');
      if (ro && !compat && !noWrites) return kWriteFlagRo;
      const { keys, args } = split;
      return runCall(s, {
        keys, readOnly: ro || (!compat && noWrites), queued,
        // EVAL stores its body in every call (a no-op insert when present): the engine here may
        // know a body that a SCRIPT FLUSH elsewhere removed from Postgres
        store: bySha ? undefined : { sha, body: argv[1] }, check: bySha ? sha : undefined,
        run: (host, begun) => {
          if (scriptKnown(begun)) return engine.eval({ sha, keys, args, proto: s.proto }, host);
          // flushed elsewhere: so is every body this process compiled (SCRIPT FLUSH empties all)
          engine.flushScripts();
          return Promise.resolve(kNoScript.bytes);
        },
      });
    }),
  });
}

export const evalCmd = evalCommand('eval', false, false);
export const evalsha = evalCommand('evalsha', true, false);
export const evalRo = evalCommand('eval_ro', false, true);
export const evalshaRo = evalCommand('evalsha_ro', true, true);
