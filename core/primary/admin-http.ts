/**
 * Admin HTTP on the primary (uWebSockets.js, via the npm repackaging
 * @trufflesuite/uws-js-unofficial: the official build installs from GitHub, unreachable here).
 * Off unless --http-port is set; binds --http-bind (loopback by default): these figures and
 * /info are not for the open network. --http-tls serves it over TLS with the server certificate.
 *   GET /metrics  Prometheus text      GET /healthz  200 when Postgres answers, else 503
 *   GET /info     INFO figures as JSON
 */
import type { WorkerStats } from '../messages';
import { renderMetrics, type PrimaryFigures } from './prometheus';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const uWS = require('@trufflesuite/uws-js-unofficial') as UwsModule;

interface UwsResponse {
  onAborted(cb: () => void): UwsResponse;
  cork(cb: () => void): UwsResponse;
  writeStatus(s: string): UwsResponse;
  writeHeader(k: string, v: string): UwsResponse;
  end(body?: string): UwsResponse;
}
interface UwsApp {
  get(path: string, h: (res: UwsResponse) => void): UwsApp;
  any(path: string, h: (res: UwsResponse) => void): UwsApp;
  listen(host: string, port: number, cb: (token: unknown) => void): UwsApp;
}
interface UwsModule {
  App(): UwsApp;
  SSLApp(options: { cert_file_name: string; key_file_name: string; passphrase?: string }): UwsApp;
  us_listen_socket_close(token: unknown): void;
  us_socket_local_port(token: unknown): number;
}

export interface AdminSources {
  workers(): Promise<WorkerStats[]>;
  primary(): PrimaryFigures;
  pgAlive(): Promise<boolean>;
  info(): Promise<unknown>;
}

export class AdminHttp {
  private token: unknown;
  port = 0;

  constructor(private readonly src: AdminSources) {}

  /** tls: --http-tls, with the files of tls-cert-file and tls-key-file, read once here */
  listen(host: string, port: number, tls?: { cert: string; key: string; passphrase: string }): Promise<number> {
    const app = tls === undefined ? uWS.App()
      : uWS.SSLApp({ cert_file_name: tls.cert, key_file_name: tls.key, passphrase: tls.passphrase || undefined });
    const reply = (path: string, produce: () => Promise<{ status: string; type: string; body: string }>) =>
      app.get(path, (res) => {
        let aborted = false;
        res.onAborted(() => { aborted = true; });
        produce().catch((e: Error) => ({ status: '500 Internal Server Error', type: 'text/plain', body: `${e.message}\n` }))
          .then((r) => {
            if (aborted) return;
            res.cork(() => { res.writeStatus(r.status).writeHeader('Content-Type', r.type).end(r.body); });
          });
      });
    reply('/metrics', async () => ({
      status: '200 OK', type: 'text/plain; version=0.0.4', body: renderMetrics(await this.src.workers(), this.src.primary()),
    }));
    reply('/healthz', async () => (await this.src.pgAlive()
      ? { status: '200 OK', type: 'text/plain', body: 'ok\n' }
      : { status: '503 Service Unavailable', type: 'text/plain', body: 'postgres unreachable\n' }));
    reply('/info', async () => ({ status: '200 OK', type: 'application/json', body: `${JSON.stringify(await this.src.info())}\n` }));
    app.any('/*', (res) => { res.writeStatus('404 Not Found').end('not found\n'); });
    return new Promise((resolve, reject) => {
      app.listen(host, port, (token) => {
        if (!token) return reject(new Error(`cannot listen for HTTP on ${host}:${port}`));
        this.token = token;
        this.port = uWS.us_socket_local_port(token);
        resolve(this.port);
      });
    });
  }

  close(): void {
    if (this.token) uWS.us_listen_socket_close(this.token);
    this.token = undefined;
  }
}
