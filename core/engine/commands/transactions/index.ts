/** MULTI / EXEC / DISCARD / WATCH / UNWATCH. */
import type { CommandSpec } from '../spec';
import { discard } from './discard';
import { exec } from './exec';
import { multi } from './multi';
import { unwatch, watch } from './watch';

export const kTransactionCommands: CommandSpec[] = [multi, exec, discard, watch, unwatch];

/** Commands that act on the transaction itself: run at once even between MULTI and EXEC. */
export const kTransactionControl = new Set(['multi', 'exec', 'discard', 'watch', 'quit', 'reset']);
