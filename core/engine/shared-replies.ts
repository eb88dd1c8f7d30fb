/** Replies every command family shares, encoded once (Valkey's shared objects). */
import { Raw } from './reply';

export const kOk = new Raw(Buffer.from('+OK\r\n'));
export const kQueued = new Raw(Buffer.from('+QUEUED\r\n'));
