/**
 * A descriptor from the TLS listener, wrapped where it lives: the worker that owns it runs the
 * handshake and the record layer, so TLS work spreads over the workers as plain traffic does and
 * the primary only accepts (core/primary/server.ts).
 *
 * A TLSSocket made outside tls.Server gets none of the server's checks after the handshake:
 * OpenSSL is told to refuse a missing certificate (tls-auth-clients yes), but a certificate that
 * does not chain to the CA is accepted by Node's verify callback and only reported. So the check
 * is here, on 'secure', as tls.Server makes it; a client whose certificate fails is closed, for
 * `optional` too (Redis verifies a certificate that is sent).
 */
import net from 'node:net';
import tls from 'node:tls';
import type { TlsServerContext } from '../core/tls/secure-context';

interface VerifyingHandle { verifyError?(): Error | null }

export function wrapTls(fd: number, ctx: TlsServerContext, onRefused: (why: string) => void): tls.TLSSocket {
  const raw = new net.Socket({ fd, readable: true, writable: true, allowHalfOpen: true });
  const socket = new tls.TLSSocket(raw, {
    isServer: true, secureContext: ctx.secureContext, requestCert: ctx.requestCert, rejectUnauthorized: ctx.requireCert,
  });
  if (ctx.requestCert) {
    socket.once('secure', () => {
      const err = (socket as unknown as { _handle?: VerifyingHandle })._handle?.verifyError?.() ?? null;
      const sent = Object.keys(socket.getPeerCertificate()).length > 0;
      if (err !== null && (sent || ctx.requireCert)) onRefused(`client certificate refused: ${(err as NodeJS.ErrnoException).code ?? err.message}`);
    });
  }
  return socket;
}
