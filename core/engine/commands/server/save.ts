/**
 * SAVE | BGSAVE [SCHEDULE] | LASTSAVE — Redis's snapshot commands, mapped onto Postgres: every
 * acknowledged write is already committed, so "save" is a CHECKPOINT (dirty pages of logged
 * tables written to their files, so a crash recovery replays less WAL). In `unlogged` mode it
 * does not make data survive a crash: Postgres empties unlogged tables after one (README).
 * LASTSAVE is the time of Postgres's last checkpoint, the same on every PostRESP instance.
 * https://redis.io/commands/save/
 */
import { RespError, Simple, type Reply } from '../../reply';
import { kOk } from '../../shared-replies';
import type { Session } from '../../session';
import { exec } from '../exec';
import { eqIgnoreCase } from '../args';
import { defineCommand } from '../define';
import { kServerSql } from './sql';

const kStarted = new Simple('Background saving started');
const kSyntax = new RespError('ERR syntax error');

function checkpoint(s: Session, reply: Reply): Reply | Promise<Reply> {
  return exec(s, kServerSql.checkpoint, [], () => reply);
}

export const save = defineCommand({
  name: 'save', arity: 1, flags: ['admin', 'noscript', 'no_async_loading', 'no_multi'], acl: ['admin', 'slow', 'dangerous'],
  since: '1.0.0', summary: 'Synchronously saves the database(s) to disk.',
  run: (s) => checkpoint(s, kOk),
});

export const bgsave = defineCommand({
  name: 'bgsave', arity: -1, flags: ['admin', 'noscript', 'no_async_loading'], acl: ['admin', 'slow', 'dangerous'],
  since: '1.0.0', summary: 'Asynchronously saves the database(s) to disk.',
  run(s, argv) {
    if (argv.length > 2 || (argv.length === 2 && !eqIgnoreCase(argv[1], 'schedule'))) return kSyntax;
    // answered at once, as Redis answers before its child process has written anything
    void checkpoint(s, kStarted);
    return kStarted;
  },
});

export const lastsave = defineCommand({
  name: 'lastsave', arity: 1, flags: ['loading', 'stale', 'fast'], acl: ['admin', 'fast', 'dangerous'],
  since: '1.0.0', tips: ['nondeterministic_output'], summary: 'Returns the Unix timestamp of the last successful save to disk.',
  run: (s) => exec(s, kServerSql.lastCheckpoint, [], (rows) => {
    const at = rows[0]?.[0];
    return at === null || at === undefined ? Math.floor(s.server.startedAt / 1000) : Number(at);
  }),
});
