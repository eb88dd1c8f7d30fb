/**
 * BUSY for an EVAL/EVALSHA/FCALL that has to wait for a script connection behind a call running
 * past busy-reply-threshold (workers/storage/script-busy.ts asks): Redis's text naming the KILL
 * of the kind that keeps the worker busy, the oldest such call's (redis-server names the one
 * script it runs). Only these calls are refused: other commands never wait for a script
 * connection (docs/scripting.md "Runaway scripts").
 */
import { RespError } from '../../reply';
import { kBusyText } from '../../scripting/errors';
import type { Session } from '../../session';
import { engineOf } from './engine-of';
import { thresholdMs } from './slow-calls';

const kBusy = { script: new RespError(kBusyText.script), function: new RespError(kBusyText.function) };

export function busyReply(s: Session): RespError | undefined {
  const kind = engineOf(s).busy(thresholdMs(s.server));
  return kind === undefined ? undefined : kBusy[kind];
}
