/**
 * The TLS server context built from the tls-* options, as Redis 7.0's tlsConfigure reads them:
 * certificate and key required; a CA (file or folder) required while tls-auth-clients is not
 * `no`; tls-protocols a space-separated subset of TLSv1 … TLSv1.3; tls-ciphers (TLSv1.2 and
 * below) and tls-ciphersuites (TLSv1.3) kept apart as OpenSSL keeps them.
 *
 * Each worker builds its own (a SecureContext cannot cross threads) at start and again when
 * CONFIG SET changes a tls-* option: new connections get the new one, open ones keep theirs.
 * Errors are thrown with Redis's log texts; CONFIG SET turns them into Redis's one reply text.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import type { Config } from '../config/config';

export interface TlsServerContext {
  secureContext: tls.SecureContext;
  /** tls-auth-clients yes or optional: the server asks for a certificate */
  requestCert: boolean;
  /** tls-auth-clients yes: a connection without a valid certificate is refused */
  requireCert: boolean;
}

/** Redis's CONFIG SET reply when tlsConfigure fails (the reason goes to the log) */
export const kTlsConfigError = 'Unable to update TLS configuration. Check server logs.';

const kProtocols = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
const kDefaultSuites = tls.DEFAULT_CIPHERS.split(':').filter((c) => c.startsWith('TLS_')).join(':');
const kDefaultCiphers = tls.DEFAULT_CIPHERS.split(':').filter((c) => c !== '' && !c.startsWith('TLS_')).join(':');

export class TlsConfigError extends Error {}

/** The options whose change rebuilds the context. */
export function isTlsOption(name: string): boolean {
  return name.startsWith('tls-') && name !== 'tls-port';
}

function readFile(what: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new TlsConfigError(`Failed to load ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Every PEM certificate in the folder (Redis hands it to OpenSSL as CApath; Node has no such thing). */
function readCaDir(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    throw new TlsConfigError(`Failed to configure CA certificate(s) file/directory: ${dir}: ${(e as NodeJS.ErrnoException).code}`);
  }
  const out: string[] = [];
  for (const n of names.sort()) {
    const file = path.join(dir, n);
    try {
      if (!fs.statSync(file).isFile()) continue;
      const text = fs.readFileSync(file, 'latin1');
      if (text.includes('-----BEGIN CERTIFICATE-----')) out.push(text);
    } catch { /* unreadable entry: skipped, as OpenSSL skips it */ }
  }
  return out;
}

function protocolRange(text: string): { minVersion: tls.SecureVersion; maxVersion: tls.SecureVersion } {
  const words = text.trim() === '' ? ['TLSv1.2', 'TLSv1.3'] : text.trim().split(/\s+/);
  const idx = words.map((w) => kProtocols.findIndex((p) => p.toLowerCase() === w.toLowerCase()));
  if (idx.some((i) => i < 0)) {
    throw new TlsConfigError("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
  }
  // Node takes a range; a set with a gap (TLSv1 TLSv1.2) allows the versions between too
  return { minVersion: kProtocols[Math.min(...idx)], maxVersion: kProtocols[Math.max(...idx)] };
}

/**
 * Builds the context or throws TlsConfigError (a message for the log). ticketKeys: one set for
 * the process (the primary draws them): a session ticket one worker issued resumes on another.
 */
export function buildTlsContext(c: Config, ticketKeys?: Uint8Array): TlsServerContext {
  const certFile = c.str('tls-cert-file');
  const keyFile = c.str('tls-key-file');
  const auth = c.str('tls-auth-clients');
  if (certFile === '') throw new TlsConfigError('No tls-cert-file configured!');
  if (keyFile === '') throw new TlsConfigError('No tls-key-file configured!');
  const caFile = c.str('tls-ca-cert-file');
  const caDir = c.str('tls-ca-cert-dir');
  if (auth !== 'no' && caFile === '' && caDir === '') {
    throw new TlsConfigError('Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!');
  }
  const ca: (string | Buffer)[] = [];
  if (caFile !== '') ca.push(readFile('CA certificate(s) file', caFile));
  if (caDir !== '') ca.push(...readCaDir(caDir));
  const ciphers = c.str('tls-ciphers');
  const suites = c.str('tls-ciphersuites');
  const options: tls.SecureContextOptions = {
    cert: readFile('certificate', certFile),
    key: readFile('private key', keyFile),
    passphrase: c.str('tls-key-file-pass') || undefined,
    ca: ca.length > 0 ? ca : undefined,
    ...protocolRange(c.str('tls-protocols')),
    ciphers: `${suites || kDefaultSuites}:${ciphers || kDefaultCiphers}`,
    honorCipherOrder: c.bool('tls-prefer-server-ciphers'),
    // Redis sets the session id context "redis"; without caching it turns the server cache off.
    // A bare TLSSocket has no server-side id cache, so resumption here means tickets
    sessionIdContext: 'redis',
    sessionTimeout: c.int('tls-session-cache-timeout'),
    ticketKeys: ticketKeys === undefined ? undefined : Buffer.from(ticketKeys.buffer, ticketKeys.byteOffset, ticketKeys.byteLength),
    dhparam: c.str('tls-dh-params-file') === '' ? undefined : readFile('DH params file', c.str('tls-dh-params-file')),
    secureOptions: c.bool('tls-session-caching') ? 0 : crypto.constants.SSL_OP_NO_TICKET,
  };
  let secureContext: tls.SecureContext;
  try {
    secureContext = tls.createSecureContext(options);
  } catch (e) {
    throw new TlsConfigError(`Failed to configure TLS: ${(e as Error).message}`);
  }
  return { secureContext, requestCert: auth !== 'no', requireCert: auth === 'yes' };
}
