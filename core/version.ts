/** Versions we report. redis_version is the Redis release whose behaviour we match. */
// eslint-disable-next-line @typescript-eslint/no-var-requires
const pkg = require('../../package.json') as { version: string };

export const kRedisVersion = '7.2.4';
export const kPostrespVersion: string = pkg.version;
