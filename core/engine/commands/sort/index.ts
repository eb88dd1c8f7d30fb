/** SORT and SORT_RO (docs/collections.md "SORT"). */
import type { CommandSpec } from '../spec';
import { sort, sortRo } from './sort';

export const kSortCommands: CommandSpec[] = [sort, sortRo];
