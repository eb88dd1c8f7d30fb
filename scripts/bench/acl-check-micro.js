// The ACL check alone (core/acl/check.ts checkUser), ns per check for PING and GET with user
// `-@all +ping +get +set ~key:*`: 5 rounds of 5 M after 2 M warm-up. usage: node acl-check-micro.js TREE (built)
const tree = process.argv[2];
const { allCommands } = require(`${tree}/dist/core/engine/commands/index`);
const { AclCommandIndex } = require(`${tree}/dist/core/acl/command-index`);
const { User } = require(`${tree}/dist/core/acl/user`);
const { checkUser } = require(`${tree}/dist/core/acl/check`);
const index = new AclCommandIndex(allCommands());
const u = new User('bench', index).withRules(['on', '>pw', '-@all', '+ping', '+get', '+set', '~key:*']);
const out = { code: 0, pos: 0 };
const get = index.lookup('get'), ping = index.lookup('ping');
const ag = [Buffer.from('GET'), Buffer.from('key:000000000123')], ap = [Buffer.from('PING')];
function run(cmd, argv, n) { let x = 0; for (let i = 0; i < n; i++) x += checkUser(u, cmd, argv, out); return x; }
for (const [name, cmd, argv] of [['ping', ping, ap], ['get', get, ag]]) {
  run(cmd, argv, 2e6);
  const best = [];
  for (let r = 0; r < 5; r++) { const t = process.hrtime.bigint(); run(cmd, argv, 5e6); best.push(Number(process.hrtime.bigint() - t) / 5e6); }
  console.log(name, 'ns/check min', Math.min(...best).toFixed(1), 'median', best.sort((a,b)=>a-b)[2].toFixed(1));
}
