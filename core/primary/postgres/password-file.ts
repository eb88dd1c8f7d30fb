/**
 * --pg-password-file: the Postgres password read from a file (a mounted secret) instead of a
 * URL or an environment variable that `ps e` and crash dumps show. It becomes PGPASSWORD of
 * this process, which libpq (the workers' lanes) and node-postgres (migrations) both read when
 * the connection URL carries no password; a password in the URL still wins, as in libpq.
 */
import fs from 'node:fs';
import { PostrespError, kErrConfig } from '../../errors';

export function applyPasswordFile(file: string, env: NodeJS.ProcessEnv = process.env): void {
  if (file === '') return;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new PostrespError(kErrConfig, `cannot read --pg-password-file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  // the first line: `echo secret > file` leaves a newline that is not part of the password
  const password = text.split(/\r?\n/)[0];
  if (password === '') throw new PostrespError(kErrConfig, `--pg-password-file ${file} is empty`);
  env.PGPASSWORD = password;
}
