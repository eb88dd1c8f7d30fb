/**
 * SADD key member [member …] | SREM key member [member …] — members added / removed; one
 * generic. The key is created by its first member and goes with its last.
 * https://redis.io/commands/sadd/
 */
import { BatchOp } from '../../ops';
import type { Session } from '../../session';
import { distinct } from '../collection/args';
import { countReply, dbArg, exec, nowArg, statusReply, countNoted } from '../exec';
import { defineCommand } from '../define';
import { whenDone, whenRemoved } from '../events';
import { kOneKey, type CommandSpec, type RunResult } from '../spec';
import { kSaddBatch } from './sadd-batch';
import { kSetSql } from './sql';

/** consecutive SADDs to one key run as one call (./sadd-batch.ts) */
function add(s: Session, argv: Buffer[]): RunResult {
  return s.server.store.submit(s, new BatchOp(kSaddBatch, { db: s.db, key: argv[1], members: distinct(argv.slice(2)) }, countReply));
}

function rem(s: Session, argv: Buffer[]): RunResult {
  return exec(s, kSetSql.rem, [dbArg(s), argv[1], distinct(argv.slice(2)), nowArg()], statusReply({}, countNoted));
}

function change(name: 'sadd' | 'srem', summary: string): CommandSpec {
  return defineCommand({
    name, arity: -3, flags: name === 'sadd' ? ['write', 'denyoom', 'fast'] : ['write', 'fast'], keys: kOneKey,
    events: name === 'sadd' ? whenDone('sadd') : whenRemoved('srem'),
    acl: ['write', 'set', 'fast'], group: 'set', since: '1.0.0', summary,
    complexity: `O(1) for each element ${name === 'sadd' ? 'added' : 'removed'}, so O(N) for N elements.`,
    run: name === 'sadd' ? add : rem,
  });
}

export const sadd = change('sadd', 'Adds one or more members to a set. Creates the key if it doesn\'t exist.');
export const srem = change('srem', 'Removes one or more members from a set. Deletes the set if the last member was removed.');
