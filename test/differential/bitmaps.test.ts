/**
 * Differential: bitmap commands against redis-server 7.0 in four connection patterns
 * (collections-compare.ts), every reply byte for byte, GET of the values included — error texts
 * and their order (offset, bit, type, range), BITFIELD's overflow arithmetic at the int64 limits.
 */
import { differential } from './collections-compare';
import { bitmapFamily } from './bitmaps-family';

differential(bitmapFamily, 20241124);
