/**
 * CONFIG GET pattern [pattern …] | SET name value [name value …] | RESETSTAT | REWRITE
 * Parameters come from core/config/options.ts; Redis parameters that mean nothing here are
 * accepted and returned unchanged (README lists them).
 * https://redis.io/commands/config-get/
 */
import { kOptions, kOptionsByName } from '../../../config/options';
import { globMatch } from '../../glob';
import { RespError, RespMap, type Reply } from '../../reply';
import { kOk } from '../../shared-replies';
import { lower } from '../args';
import { defineCommand } from '../define';
import { helpReply } from '../help';
import type { CommandSpec } from '../spec';
import { Config } from '../../../config/config';
import { buildTlsContext, isTlsOption, kTlsConfigError } from '../../../tls/secure-context';

const acl = ['admin', 'slow', 'dangerous'];

const configGet = defineCommand({
  name: 'config|get', arity: -3, flags: ['admin', 'noscript', 'loading', 'stale'], acl, since: '2.0.0',
  summary: 'Returns the effective values of configuration parameters.',
  run(s, argv) {
    const out: Reply[] = [];
    const seen = new Set<string>();
    for (let i = 2; i < argv.length; i++) {
      const pattern = Buffer.from(lower(argv[i]));
      for (const o of kOptions) {
        if (o.startOnly || seen.has(o.name) || !globMatch(pattern, Buffer.from(o.name), true)) continue;
        seen.add(o.name);
        out.push(o.name, s.server.config.format(o.name));
      }
    }
    return new RespMap(out);
  },
});

const configSet = defineCommand({
  name: 'config|set', arity: -4, flags: ['admin', 'noscript', 'loading', 'stale'], acl, since: '2.0.0',
  tips: ['request_policy:all_nodes', 'response_policy:all_succeeded'],
  summary: 'Sets configuration parameters in-flight.',
  async run(s, argv) {
    if (argv.length % 2 !== 0) return new RespError("ERR wrong number of arguments for 'config|set' command");
    const pairs: [string, string][] = [];
    // validate every pair on a scratch copy first: CONFIG SET is all or nothing
    const scratch = new Config(s.server.config.toRecord());
    for (let i = 2; i < argv.length; i += 2) {
      const name = lower(argv[i]);
      const value = argv[i + 1].toString();
      const spec = kOptionsByName.get(name);
      if (spec === undefined || spec.startOnly) {
        return new RespError(`ERR Unknown option or number of arguments for CONFIG SET - '${argv[i].toString()}'`);
      }
      if (pairs.some(([n]) => n === name)) return failed(name, 'duplicate parameter');
      if (!spec.mutable) return failed(name, "can't set immutable config");
      const err = scratch.set(name, value);
      if (err) return failed(name, err);
      pairs.push([name, value]);
    }
    // Redis's applyTlsCfg: with a TLS port, the new files must make a context, or nothing changes
    const tlsName = pairs.find(([n]) => isTlsOption(n))?.[0];
    if (tlsName !== undefined && scratch.int('tls-port') !== 0) {
      try { buildTlsContext(scratch); } catch (e) {
        s.server.log(`Failed to configure TLS: ${(e as Error).message}`);
        return failed(tlsName, kTlsConfigError);
      }
    }
    await s.server.configSet(pairs);
    return kOk;
  },
});

function failed(name: string, why: string): RespError {
  return new RespError(`ERR CONFIG SET failed (possibly related to argument '${name}') - ${why}`);
}

const configResetstat = defineCommand({
  name: 'config|resetstat', arity: 2, flags: ['admin', 'noscript', 'loading', 'stale'], acl, since: '2.0.0',
  summary: 'Resets the server\'s statistics.',
  // answers once every worker cleared its counters: an INFO sent right after must not add up
  // another worker's old errorstats (unit/scripting "LUA redis.error_reply API with empty string")
  run: (s) => s.server.resetStats().then(() => kOk),
});

const configRewrite = defineCommand({
  name: 'config|rewrite', arity: 2, flags: ['admin', 'noscript', 'loading', 'stale'], acl, since: '2.8.0',
  summary: 'Persists the effective configuration to file.',
  // flags, environment and file are all inputs here; rewriting one of them would surprise
  run: () => new RespError('ERR Rewriting config file: not supported by PostRESP; set options with flags, environment or the config file'),
});

const subs: CommandSpec[] = [configGet, configSet, configResetstat, configRewrite];

export const config = defineCommand({
  name: 'config', arity: -2, acl: ['slow'], since: '2.0.0', summary: 'A container for server configuration commands.',
  subcommands: [...subs, defineCommand({
    name: 'config|help', arity: 2, flags: ['loading', 'stale'], acl: ['slow'], since: '5.0.0',
    summary: 'Returns helpful text about the different subcommands.', run: () => helpReply('CONFIG', subs),
  })],
  run: () => null,
});
