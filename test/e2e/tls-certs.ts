/**
 * Certificates for the TLS tests, made with openssl in a temp folder (EC P-256: a few ms each):
 * a CA, a server certificate for 127.0.0.1/localhost with its key encrypted (tls-key-file-pass),
 * a second server certificate (the reload test), a client certificate of the CA, and a client
 * certificate of another CA (refused).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCerts {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  /** passphrase of serverKey */
  serverPass: string;
  /** CN=reloaded, same CA, key not encrypted */
  server2Cert: string;
  server2Key: string;
  clientCert: string;
  clientKey: string;
  /** a self-signed client certificate no CA here vouches for */
  strangerCert: string;
  strangerKey: string;
  read(file: string): Buffer;
  remove(): void;
}

export function makeCerts(): TestCerts {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postresp-tls-'));
  const f = (n: string) => path.join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];
  ssl('req', '-x509', ...ec, '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=PostRESP test CA');
  fs.writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  const signed = (name: string, cn: string, ext: boolean) => {
    ssl('req', ...ec, '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`,
      '-days', '2', ...(ext ? ['-extfile', 'server.ext'] : []));
  };
  signed('server', 'localhost', true);
  signed('server2', 'reloaded', true);
  signed('client', 'client', false);
  const pass = 'key-pass-1';
  ssl('pkey', '-in', 'server.key', '-out', 'server-enc.key', '-aes256', '-passout', `pass:${pass}`);
  ssl('req', '-x509', ...ec, '-nodes', '-keyout', 'stranger.key', '-out', 'stranger.crt', '-days', '2', '-subj', '/CN=stranger');
  return {
    dir, ca: f('ca.crt'), serverCert: f('server.crt'), serverKey: f('server-enc.key'), serverPass: pass,
    server2Cert: f('server2.crt'), server2Key: f('server2.key'), clientCert: f('client.crt'), clientKey: f('client.key'),
    strangerCert: f('stranger.crt'), strangerKey: f('stranger.key'),
    read: (file) => fs.readFileSync(file),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
