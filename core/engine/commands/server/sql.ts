/** SAVE / BGSAVE / LASTSAVE's statements (save.ts): Postgres's checkpoint stands for Redis's snapshot. */
import type { Statement } from '../../key-store';

export const kServerSql = {
  checkpoint: { text: 'CHECKPOINT' },
  /** pg_control_checkpoint() is not executable by every role: NULL then, and LASTSAVE falls back */
  lastCheckpoint: {
    text: `SELECT CASE WHEN has_function_privilege('pg_control_checkpoint()', 'EXECUTE')
           THEN (SELECT extract(epoch FROM checkpoint_time)::int8 FROM pg_control_checkpoint()) END`,
  },
} satisfies Record<string, Statement>;
