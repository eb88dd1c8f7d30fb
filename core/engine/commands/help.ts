/** `<CONTAINER> HELP`: one line per subcommand, from the table. */
import { Simple } from '../reply';
import type { CommandSpec } from './spec';

export function helpReply(container: string, subs: readonly CommandSpec[]): Simple[] {
  const lines = [`${container} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:`];
  for (const s of subs) {
    lines.push(s.name.split('|')[1].toUpperCase());
    lines.push(`    ${s.summary}`);
  }
  lines.push('HELP');
  lines.push('    Print this help.');
  return lines.map((l) => new Simple(l));
}
