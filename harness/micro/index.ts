// Runs every *.bench.js next to this file, one after the other (npm run bench:micro).
// A suite exports `run(): Promise<void>` and prints its own table.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export async function main(): Promise<void> {
  const only = process.argv[2];
  const suites = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.js') && (!only || f.includes(only)))
    .sort();
  for (const file of suites) {
    const suite = require(join(__dirname, file)) as { run?: () => Promise<void> };
    if (typeof suite.run !== 'function') throw new Error(`${file} does not export run()`);
    console.log(`\n## ${file.replace(/\.js$/, '')}  (node ${process.version}, ${process.platform}/${process.arch})`);
    await suite.run();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
