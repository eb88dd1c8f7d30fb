/**
 * SCRIPT LOAD | EXISTS | FLUSH [ASYNC|SYNC] | KILL | HELP — the script cache (./scripts.ts).
 * FLUSH empties this process's engine and Postgres's table; another instance's engine keeps its
 * compiled bodies, but its EVALSHA checks Postgres in the call's first statement (NOSCRIPT, and
 * it empties its engine too) and its SCRIPT EXISTS asks Postgres only. KILL stops the EVAL scripts
 * that have not written yet, of this process or else of any instance on the schema (./kill.ts).
 * https://redis.io/commands/script-load/
 */
import { RespError, type Reply } from '../../reply';
import { kOk } from '../../shared-replies';
import { eqIgnoreCase } from '../args';
import { defineCommand } from '../define';
import { engineOf } from './engine-of';
import { kScriptHelp } from './help-text';
import { killCalls } from './kill';
import { kScriptingSql } from './sql';

const acl = ['slow', 'scripting'];
const group = 'scripting';
const kFlushOption = new RespError('ERR SCRIPT FLUSH only support SYNC|ASYNC option');

/** FLUSH's optional ASYNC|SYNC (both flush at once here) */
export function flushModeOk(argv: Buffer[]): boolean {
  return argv.length === 2 || (argv.length === 3 && (eqIgnoreCase(argv[2], 'async') || eqIgnoreCase(argv[2], 'sync')));
}

const load = defineCommand({
  name: 'script|load', arity: 3, flags: ['noscript', 'stale'], acl, group, since: '2.6.0',
  tips: ['request_policy:all_nodes', 'response_policy:all_succeeded'],
  summary: 'Load the specified Lua script into the script cache.',
  async run(s, argv): Promise<Reply> {
    const r = engineOf(s).loadScript(argv[2]);
    if ('error' in r) return new RespError(r.error);
    const stored = await s.server.store.exec(s, kScriptingSql.store, [r.sha, argv[2]], () => r.sha);
    return stored instanceof RespError ? stored : r.sha;
  },
});

const exists = defineCommand({
  name: 'script|exists', arity: -3, flags: ['noscript'], acl, group, since: '2.6.0',
  tips: ['request_policy:all_shards', 'response_policy:agg_logical_and'],
  summary: 'Check existence of scripts in the script cache.',
  async run(s, argv): Promise<Reply> {
    // Postgres only: this process's engine may still hold a body another instance flushed
    const shas = argv.slice(2).map((b) => b.toString('latin1').toLowerCase());
    const asked = shas.filter((sha) => /^[0-9a-f]{40}$/.test(sha));
    let stored = new Set<string>();
    if (asked.length > 0) {
      const found = await s.server.store.exec(s, kScriptingSql.exist, [`{${asked.join(',')}}`], (rows) => rows.map((r) => r[0] as string));
      if (found instanceof RespError) return found;
      stored = new Set(found as string[]);
    }
    return shas.map((sha) => (stored.has(sha) ? 1 : 0));
  },
});

const flush = defineCommand({
  name: 'script|flush', arity: -2, flags: ['noscript'], acl, group, since: '2.6.0',
  tips: ['request_policy:all_nodes', 'response_policy:all_succeeded'],
  summary: 'Remove all the scripts from the script cache.',
  async run(s, argv): Promise<Reply> {
    if (!flushModeOk(argv)) return kFlushOption;
    engineOf(s).flushScripts();
    const r = await s.server.store.exec(s, kScriptingSql.flush, [], () => kOk);
    return r;
  },
});

const kill = defineCommand({
  name: 'script|kill', arity: 2, flags: ['noscript', 'allow_busy'], acl, group, since: '2.6.0',
  tips: ['request_policy:all_shards', 'response_policy:one_succeeded'],
  summary: 'Kill the script currently in execution.',
  run: (s) => killCalls(s, 'script'),
});

const help = defineCommand({
  name: 'script|help', arity: 2, flags: ['loading', 'stale'], acl, group, since: '5.0.0',
  summary: 'Show helpful text about the different subcommands', run: () => kScriptHelp,
});

export const script = defineCommand({
  name: 'script', arity: -2, acl: ['slow'], group, since: '2.6.0', summary: 'A container for Lua scripts management commands',
  subcommands: [flush, exists, help, load, kill],
  run: () => null,
});
