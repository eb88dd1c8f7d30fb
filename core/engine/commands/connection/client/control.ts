/**
 * CLIENT KILL addr | CLIENT KILL [ID id] [ADDR a] [LADDR a] [TYPE t] [USER u] [SKIPME yes|no] [MAXAGE s]
 * CLIENT REPLY ON|OFF|SKIP, CLIENT NO-EVICT ON|OFF, CLIENT NO-TOUCH ON|OFF
 * https://redis.io/commands/client-kill/
 */
import { RespError, kNoReply } from '../../../reply';
import { Err } from '../../../resp-errors';
import { kOk } from '../../../shared-replies';
import type { ClientFilter, Session } from '../../../session';
import { lower, parseInt53 } from '../../args';
import { defineCommand } from '../../define';

const group = 'connection';

export const clientKill = defineCommand({
  name: 'client|kill', arity: -3, flags: ['admin', 'noscript', 'loading', 'stale'],
  acl: ['admin', 'slow', 'dangerous', 'connection'], group, since: '2.4.0', summary: 'Terminates open connections.',
  async run(s, argv) {
    if (argv.length === 3) {
      const n = await s.server.killClients({ addr: argv[2].toString() });
      return n > 0 ? kOk : Err.noSuchClient;
    }
    if (argv.length % 2 !== 0) return Err.syntax;
    const f: ClientFilter = { skip: s.id };
    for (let i = 2; i < argv.length; i += 2) {
      const opt = lower(argv[i]);
      const v = argv[i + 1].toString();
      if (opt === 'id') {
        const id = parseInt53(argv[i + 1]);
        if (id === undefined || id <= 0) return new RespError('ERR client-id should be greater than 0');
        f.id = [id];
      } else if (opt === 'addr') f.addr = v;
      else if (opt === 'laddr') f.laddr = v;
      else if (opt === 'type') {
        const t = v.toLowerCase();
        if (!['normal', 'master', 'replica', 'slave', 'pubsub'].includes(t)) return new RespError(`ERR Unknown client type '${v}'`);
        f.type = t;
      } else if (opt === 'user') {
        // Redis looks the user up while parsing: a name nobody has is an error, not 0 killed
        const name = argv[i + 1].toString('latin1');
        if (!s.server.acl.users.has(name)) return Err.noSuchUser(name);
        f.user = name;
      }
      else if (opt === 'skipme') {
        const yes = v.toLowerCase();
        if (yes === 'yes') f.skip = s.id;
        else if (yes === 'no') f.skip = undefined;
        else return Err.syntax;
      } else if (opt === 'maxage') {
        const age = parseInt53(argv[i + 1]);
        if (age === undefined) return Err.notInteger;
        f.maxage = age;
      } else return Err.syntax;
    }
    return s.server.killClients(f);
  },
});

export const clientReply = defineCommand({
  name: 'client|reply', arity: 3, flags: ['noscript', 'loading', 'stale'], acl: ['slow', 'connection'],
  group, since: '3.2.0', summary: 'Instructs the server whether to reply to commands.',
  run(s, argv) {
    const mode = lower(argv[2]);
    if (mode === 'on') {
      s.replyOff = false;
      s.skipNext = false;
      return kOk;
    }
    if (mode === 'off') { s.replyOff = true; return kNoReply; }
    if (mode === 'skip') { if (!s.replyOff) s.skipNext = true; return kNoReply; }
    return Err.syntax;
  },
});

function onOff(name: 'noEvict' | 'noTouch', cmd: string, admin: boolean, since: string, summary: string) {
  return defineCommand({
    name: cmd, arity: 3, flags: admin ? ['admin', 'noscript', 'loading', 'stale'] : ['noscript', 'loading', 'stale'], acl: ['connection'],
    group, since, summary,
    run(s: Session, argv) {
      const v = lower(argv[2]);
      if (v !== 'on' && v !== 'off') return Err.syntax;
      s[name] = v === 'on';
      return kOk;
    },
  });
}

// no eviction and no LRU/LFU here: the flags are kept and shown in CLIENT LIST, nothing more
export const clientNoEvict = onOff('noEvict', 'client|no-evict', true, '7.0.0', 'Sets the client eviction mode of the connection.');
export const clientNoTouch = onOff('noTouch', 'client|no-touch', false, '7.2.0', 'Controls whether commands sent by the client affect the LRU/LFU of accessed keys.');
