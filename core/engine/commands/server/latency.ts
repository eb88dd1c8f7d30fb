/**
 * LATENCY HISTOGRAM [command …] | LATEST | HISTORY event | RESET [event …] | DOCTOR | HELP
 * HISTOGRAM reports per-command latency in power-of-two µs buckets (cumulative), like Redis 7.
 * There is no latency monitor (latency-monitor-threshold has no effect), so LATEST and HISTORY
 * are empty and RESET resets nothing.
 * https://redis.io/commands/latency-histogram/
 */
import { RespMap, type Reply } from '../../reply';
import { mergeCommands } from '../../../metrics/aggregate';
import { kBuckets } from '../../../metrics/log2-histogram';
import { lower } from '../args';
import { defineCommand } from '../define';
import { helpReply } from '../help';

const acl = ['admin', 'slow', 'dangerous'];
const flags = ['admin', 'noscript', 'loading', 'stale'] as const;
const tips = ['nondeterministic_output', 'request_policy:all_nodes', 'response_policy:special'];

const histogram = defineCommand({
  name: 'latency|histogram', arity: -2, flags, acl, tips, since: '7.0.0',
  summary: 'Returns the cumulative distribution of latencies of a subset or all commands.',
  async run(s, argv) {
    const wanted = new Set(argv.slice(2).map(lower));
    const merged = mergeCommands((await s.server.info()).workers);
    const out: Reply[] = [];
    for (const [name, c] of merged) {
      if (wanted.size > 0 && !wanted.has(name)) continue;
      const buckets: Reply[] = [];
      let cumulative = 0;
      for (let i = 0; i < kBuckets; i++) {
        if (c.hist[i] === 0 && cumulative === 0) continue;
        cumulative += c.hist[i];
        buckets.push(2 ** i, cumulative);
        if (cumulative === c.calls) break;
      }
      out.push(name, new RespMap(['calls', c.calls, 'histogram_usec', new RespMap(buckets)]));
    }
    return new RespMap(out);
  },
});

const latest = defineCommand({ name: 'latency|latest', arity: 2, flags, acl, tips, since: '2.8.13', summary: 'Returns the latest latency samples for all events.', run: () => [] });
const history = defineCommand({ name: 'latency|history', arity: 3, flags, acl, tips, since: '2.8.13', summary: 'Returns timestamp-latency samples for an event.', run: () => [] });
const reset = defineCommand({ name: 'latency|reset', arity: -2, flags, acl,
  tips: ['request_policy:all_nodes', 'response_policy:all_succeeded'], since: '2.8.13', summary: 'Resets the latency data for one or more events.', run: () => 0 });
const doctor = defineCommand({
  name: 'latency|doctor', arity: 2, flags, acl, tips, since: '2.8.13', summary: 'Returns a human-readable latency analysis report.',
  run: () => 'Dave, no latency spike was observed during the lifetime of this PostRESP instance (the latency monitor is not implemented; see LATENCY HISTOGRAM and /metrics).',
});

const subs = [histogram, latest, history, reset, doctor];

export const latency = defineCommand({
  name: 'latency', arity: -2, acl: ['slow'], since: '2.8.13', summary: 'A container for latency diagnostics commands.',
  subcommands: [...subs, defineCommand({
    name: 'latency|help', arity: 2, flags: ['loading', 'stale'], acl: ['slow'], since: '2.8.13',
    summary: 'Returns helpful text about the different subcommands.', run: () => helpReply('LATENCY', subs),
  })],
  run: () => null,
});
