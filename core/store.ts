/**
 * The keyspace as command handlers see it. Implemented per worker by workers/storage/store.ts
 * over its Postgres lanes; each method resolves to the command's reply value.
 */
import type { Reply } from './reply';
import type { Session } from './session';

export const enum SetCond { None = 0, Nx = 1, Xx = 2 }

export interface SetRequest {
  value: Buffer;
  /** absolute Unix ms, or null for no TTL */
  expiresAt: number | null;
  cond: SetCond;
  keepTtl: boolean;
  get: boolean;
}

export interface KeyStore {
  get(s: Session, key: Buffer): Promise<Reply>;
  mget(s: Session, keys: Buffer[]): Promise<Reply>;
  set(s: Session, key: Buffer, req: SetRequest): Promise<Reply>;
  /** key, value, key, value… */
  mset(s: Session, kv: Buffer[]): Promise<Reply>;
  del(s: Session, keys: Buffer[]): Promise<Reply>;
  exists(s: Session, keys: Buffer[]): Promise<Reply>;
  incrBy(s: Session, key: Buffer, delta: bigint): Promise<Reply>;
  dbsize(s: Session): Promise<Reply>;
  /** db null = every database */
  flush(s: Session, db: number | null): Promise<Reply>;
}
