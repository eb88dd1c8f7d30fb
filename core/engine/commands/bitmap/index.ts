/** Bitmap commands on string values (docs/bitmaps.md). */
import type { CommandSpec } from '../spec';
import { bitcount } from './bitcount';
import { bitfield, bitfieldRo } from './bitfield';
import { bitop } from './bitop';
import { bitpos } from './bitpos';
import { getbit, setbit } from './setbit';

export const kBitmapCommands: CommandSpec[] = [setbit, getbit, bitcount, bitpos, bitop, bitfield, bitfieldRo];
