/**
 * FUNCTION LOAD [REPLACE] | DELETE | FLUSH [ASYNC|SYNC] | LIST [WITHCODE] [LIBRARYNAME pattern] |
 * DUMP | RESTORE payload [FLUSH|APPEND|REPLACE] | STATS | KILL | HELP. Libraries live in Postgres
 * and every instance's engine follows them (./libraries.ts, ./library-change.ts); KILL stops the
 * functions that have not written yet, of this process or else of any instance (./kill.ts).
 * https://redis.io/commands/function-load/
 */
import { Raw, RespError, RespMap, RespSet, Simple, type Reply } from '../../reply';
import { kOk } from '../../shared-replies';
import { globMatch } from '../../glob';
import { eqIgnoreCase } from '../args';
import { defineCommand } from '../define';
import { engineOf } from './engine-of';
import { kFunctionHelp } from './help-text';
import { changeLibraries, currentLibraries } from './library-change';
import { flushModeOk } from './script';
import { killCalls } from './kill';
import { dumpLibraries, restore } from './function-dump';

const acl = ['slow', 'scripting'];
const group = 'scripting';
const since = '7.0.0';
const allShards = ['request_policy:all_shards', 'response_policy:all_succeeded'];
const noEvents = (): void => undefined;
const kNotFound = new RespError('ERR Library not found');
const kFlushOption = new RespError('ERR FUNCTION FLUSH only supports SYNC|ASYNC option');
const kNoName = new RespError('ERR library name argument was not given');

const load = defineCommand({
  name: 'function|load', arity: -3, flags: ['write', 'denyoom', 'noscript'], events: noEvents, acl, group, since, tips: allShards,
  summary: 'Create a function with the given arguments (name, code, description)',
  run(s, argv) {
    // every argument before the code is an option (functionLoadCommand)
    let replace = false;
    for (let i = 2; i < argv.length - 1; i++) {
      if (eqIgnoreCase(argv[i], 'replace')) replace = true;
      else return new RespError(`ERR Unknown option given: ${argv[i].toString('latin1')}`);
    }
    const code = argv[argv.length - 1];
    return changeLibraries(s, async (engine) => {
      const r = await engine.loadLibrary(code, replace);
      return r[0] === 45 /* - */ ? new RespError(r.toString('latin1', 1, r.length - 2)) : new Raw(r);
    });
  },
});

const del = defineCommand({
  name: 'function|delete', arity: 3, flags: ['write', 'noscript'], events: noEvents, acl, group, since, tips: allShards,
  summary: 'Delete a function by name',
  run: (s, argv) => changeLibraries(s, async (engine) => (engine.deleteLibrary(argv[2].toString()) ? kOk : kNotFound)),
});

const flush = defineCommand({
  name: 'function|flush', arity: -2, flags: ['write', 'noscript'], events: noEvents, acl, group, since, tips: allShards,
  summary: 'Deleting all functions',
  run(s, argv) {
    if (argv.length > 3) return new RespError(`ERR unknown subcommand or wrong number of arguments for '${argv[1].toString('latin1')}'. Try FUNCTION HELP.`);
    if (!flushModeOk(argv)) return kFlushOption;
    return changeLibraries(s, async (engine) => { engine.flushLibraries(); return kOk; });
  },
});

const list = defineCommand({
  name: 'function|list', arity: -2, flags: ['noscript'], acl, group, since, tips: ['nondeterministic_output_order'],
  summary: 'List information about all the functions',
  async run(s, argv): Promise<Reply> {
    let withCode = false;
    let pattern: Buffer | undefined;
    for (let i = 2; i < argv.length; i++) {
      if (!withCode && eqIgnoreCase(argv[i], 'withcode')) { withCode = true; continue; }
      if (pattern === undefined && eqIgnoreCase(argv[i], 'libraryname')) {
        if (i >= argv.length - 1) return kNoName;
        pattern = argv[++i];
        continue;
      }
      return new RespError(`ERR Unknown argument ${argv[i].toString('latin1')}`);
    }
    const engine = engineOf(s);
    const failed = await currentLibraries(s, engine);
    if (failed) return failed;
    const out: Reply[] = [];
    for (const lib of engine.listLibraries()) {
      if (pattern !== undefined && !globMatch(pattern, Buffer.from(lib.name), true)) continue;
      const fns = lib.functions.map((f) => new RespMap(['name', f.name, 'description', f.description, 'flags', new RespSet(f.flags.map((x) => new Simple(x)))]));
      const fields: Reply[] = ['library_name', lib.name, 'engine', 'LUA', 'functions', fns];
      if (withCode) fields.push('library_code', lib.code);
      out.push(new RespMap(fields));
    }
    return out;
  },
});

const dump = defineCommand({
  name: 'function|dump', arity: 2, flags: ['noscript'], acl, group, since,
  summary: 'Dump all functions into a serialized binary payload',
  async run(s): Promise<Reply> {
    const engine = engineOf(s);
    const failed = await currentLibraries(s, engine);
    return failed ?? dumpLibraries(engine.listLibraries().map((l) => l.code));
  },
});

const restoreCmd = defineCommand({
  name: 'function|restore', arity: -3, flags: ['write', 'denyoom', 'noscript'], events: noEvents, acl, group, since, tips: allShards,
  summary: 'Restore all the functions on the given payload',
  run: (s, argv) => restore(s, argv),
});

const stats = defineCommand({
  name: 'function|stats', arity: 2, flags: ['noscript', 'allow_busy'], acl, group, since,
  tips: ['nondeterministic_output', 'request_policy:all_shards', 'response_policy:special'],
  summary: 'Return information about the function currently running (name, description, duration)',
  async run(s): Promise<Reply> {
    const engine = engineOf(s);
    const failed = await currentLibraries(s, engine);
    if (failed) return failed;
    const running = engine.running().find((r) => r.kind === 'function');
    const libs = engine.listLibraries();
    const functions = libs.reduce((n, l) => n + l.functions.length, 0);
    return new RespMap([
      'running_script', running === undefined ? null
        : new RespMap(['name', running.name, 'command', ['fcall', running.name], 'duration_ms', Math.floor(running.ms)]),
      'engines', new RespMap(['LUA', new RespMap(['libraries_count', libs.length, 'functions_count', functions])]),
    ]);
  },
});

const kill = defineCommand({
  name: 'function|kill', arity: 2, flags: ['noscript', 'allow_busy'], acl, group, since,
  tips: ['request_policy:all_shards', 'response_policy:one_succeeded'],
  summary: 'Kill the function currently in execution.',
  run: (s) => killCalls(s, 'function'),
});

const help = defineCommand({
  name: 'function|help', arity: 2, flags: ['loading', 'stale'], acl, group, since,
  summary: 'Show helpful text about the different subcommands', run: () => kFunctionHelp,
});

export const functionCmd = defineCommand({
  name: 'function', arity: -2, acl: ['slow'], group, since, summary: 'A container for function commands',
  subcommands: [help, dump, load, restoreCmd, flush, list, kill, del, stats],
  run: () => null,
});
