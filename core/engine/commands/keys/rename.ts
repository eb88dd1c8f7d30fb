/**
 * RENAME key newkey | RENAMENX key newkey — moves the value, its TTL and any collection rows to
 * the new name (move_key); RENAME replaces newkey, RENAMENX leaves it and answers 0.
 * https://redis.io/commands/rename/
 */
import { kOk } from '../../shared-replies';
import { defineCommand } from '../define';
import { renameEvents } from './events';
import type { CommandSpec } from '../spec';
import { kNoSuchKey } from './shared';
import { dbArg, nowArg } from '../exec';
import { kKeySql } from './sql';


function rename(name: 'rename' | 'renamenx', summary: string): CommandSpec {
  const nx = name === 'renamenx';
  return defineCommand({
    name, arity: 3, flags: nx ? ['write', 'fast'] : ['write'], keys: { first: 1, last: 2, step: 1 },
    events: renameEvents,
    acl: nx ? ['keyspace', 'write', 'fast'] : ['keyspace', 'write', 'slow'], group: 'generic', summary, complexity: 'O(1)',
    run(s, argv) {
      const same = argv[1].equals(argv[2]);
      return s.server.store.exec(s, kKeySql.rename, [dbArg(s), argv[1], argv[2], nx ? 'true' : 'false', nowArg()], (rows) => {
        const status = rows[0][0] as number;
        if (status === -1) return kNoSuchKey;
        if (!nx) return kOk;
        return same ? 0 : status;
      });
    },
  });
}

export const renameCmd = rename('rename', 'Renames a key and overwrites the destination.');
export const renamenx = rename('renamenx', 'Renames a key only when the target key name doesn\'t exist.');
