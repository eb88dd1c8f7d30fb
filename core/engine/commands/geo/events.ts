/** The geo family's keyspace events (Redis 7.0's geo.c: GEOADD is a ZADD, searches may store). */
import { eqIgnoreCase } from '../args';
import { stored } from '../events';
import type { EventsOf } from '../../write-hook';

/**
 * GEORADIUS and GEORADIUSBYMEMBER (options from `from`): with STORE or STOREDIST (the last one
 * counts, as in georadiusGeneric), `georadiusstore` on that key, or `del` when the result was
 * empty and the key existed (the note); without, nothing.
 */
export function georadiusEvents(from: number): EventsOf {
  const onStore = stored('georadiusstore');
  return (emit, db, argv, reply, note) => {
    let store: Buffer | undefined;
    for (let i = from; i + 1 < argv.length; i++) {
      if (eqIgnoreCase(argv[i], 'store') || eqIgnoreCase(argv[i], 'storedist')) store = argv[++i];
      else if (eqIgnoreCase(argv[i], 'count')) i++;
    }
    if (store !== undefined) onStore(emit, db, [argv[0], store], reply, note);
  };
}
