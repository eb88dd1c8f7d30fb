/**
 * The effective configuration: defaults, then the config file, then POSTRESP_* environment
 * variables, then command-line flags; validated once, with one clear message per mistake.
 * Workers receive a snapshot (`toRecord`) and apply CONFIG SET changes the primary broadcasts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PostrespError, kErrConfig } from '../errors';
import { kOptions, kOptionsByName, type OptionSpec } from './options';
import { formatValue, parseMemory, parseValue, type OptionValue } from './values';
import { formatNotifyFlags, kNotifyError, parseNotifyFlags, storedNotifyFlags } from './notify-flags';

export interface OutputLimit { hard: number; soft: number; softSeconds: number }

export class Config {
  private readonly values = new Map<string, OptionValue>();
  /** absolute path of the config file read at start, if any (INFO server config_file) */
  file: string | undefined;

  constructor(record?: Record<string, OptionValue>) {
    for (const spec of kOptions) {
      const v = parseValue(spec, spec.default);
      if (typeof v === 'object') throw new Error(`bad default for ${spec.name}`);
      this.values.set(spec.name, v);
    }
    if (record) for (const [k, v] of Object.entries(record)) this.values.set(k, v);
  }

  get(name: string): OptionValue {
    const v = this.values.get(name);
    if (v === undefined) throw new Error(`no option ${name}`);
    return v;
  }
  int(name: string): number {
    return this.get(name) as number;
  }
  str(name: string): string {
    return this.get(name) as string;
  }
  bool(name: string): boolean {
    return this.get(name) as boolean;
  }

  /** Parse and store; returns an error message (without prefix) or undefined. */
  set(name: string, text: string): string | undefined {
    const spec = kOptionsByName.get(name);
    if (spec === undefined) return 'unknown option';
    const v = parseValue(spec, text);
    if (typeof v === 'object') return v.error;
    if (name === 'notify-keyspace-events') {
      // kept in Redis's printed form (plus an `n` that form drops): CONFIG GET shows what Redis would
      const flags = parseNotifyFlags(String(v));
      if (flags === undefined) return kNotifyError;
      this.values.set(name, storedNotifyFlags(flags));
      return undefined;
    }
    if (name === 'client-output-buffer-limit') {
      const given = parseOutputLimits(String(v));
      if (given === undefined) return 'Wrong number of arguments in buffer limit configuration.';
      // as Redis: the classes named change, the others keep their limits; all three are shown
      const all = { ...parseOutputLimits(this.str(name)), ...given };
      this.values.set(name, ['normal', 'slave', 'pubsub'].map((c) => `${c} ${all[c].hard} ${all[c].soft} ${all[c].softSeconds}`).join(' '));
      return undefined;
    }
    this.values.set(name, v);
    return undefined;
  }

  format(name: string): string {
    const spec = kOptionsByName.get(name)!;
    if (name === 'notify-keyspace-events') return formatNotifyFlags(parseNotifyFlags(this.str(name)) ?? 0);
    return formatValue(spec, this.get(name));
  }

  toRecord(): Record<string, OptionValue> {
    return Object.fromEntries(this.values);
  }

  outputLimit(cls: 'normal' | 'pubsub' = 'normal'): OutputLimit {
    return parseOutputLimits(this.str('client-output-buffer-limit'))?.[cls] ?? { hard: 0, soft: 0, softSeconds: 0 };
  }
}

/** `normal 0 0 0 slave … pubsub …` → per class limits; undefined when malformed. */
export function parseOutputLimits(text: string): Record<string, OutputLimit> | undefined {
  const parts = text.trim().split(/\s+/);
  if (parts.length % 4 !== 0) return undefined;
  const out: Record<string, OutputLimit> = {};
  for (let i = 0; i < parts.length; i += 4) {
    const cls = parts[i].toLowerCase() === 'replica' ? 'slave' : parts[i].toLowerCase();
    const hard = parseMemory(parts[i + 1]);
    const soft = parseMemory(parts[i + 2]);
    const secs = Number(parts[i + 3]);
    if (!['normal', 'slave', 'pubsub'].includes(cls) || hard === undefined || soft === undefined ||
      !Number.isInteger(secs) || hard < 0 || soft < 0 || secs < 0) return undefined;
    out[cls] = { hard, soft, softSeconds: secs };
  }
  return out;
}

export interface LoadSources {
  argv: string[];
  env: NodeJS.ProcessEnv;
}

export function envName(option: string): string {
  return `POSTRESP_${option.toUpperCase().replace(/-/g, '_')}`;
}

/** Build the configuration from file, environment and flags; throws PostrespError on mistakes. */
export function loadConfig({ argv, env }: LoadSources): Config {
  const config = new Config();
  const apply = (spec: OptionSpec | undefined, name: string, text: string, from: string) => {
    if (spec === undefined) throw new PostrespError(kErrConfig, `unknown option '${name}' (${from}); see --help`);
    const err = config.set(spec.name, text);
    if (err) throw new PostrespError(kErrConfig, `invalid value '${text}' for '${spec.name}' (${from}): ${err}`);
  };
  const flags: [string, string][] = [];
  let file: string | undefined = env.POSTRESP_CONFIG || undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      if (i === 0) { file = a; continue; }
      throw new PostrespError(kErrConfig, `unexpected argument '${a}': options are --name value`);
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    if (name === 'config') { file = argv[++i]; continue; }
    const spec = kOptionsByName.get(name);
    if (eq > 0) flags.push([name, a.slice(eq + 1)]);
    else if (spec?.type === 'bool' && (i + 1 >= argv.length || argv[i + 1].startsWith('--'))) flags.push([name, 'yes']);
    else if (i + 1 >= argv.length) throw new PostrespError(kErrConfig, `option --${name} needs a value`);
    else flags.push([name, argv[++i]]);
  }
  if (file !== undefined) {
    config.file = path.resolve(file);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new PostrespError(kErrConfig, `cannot read config file ${file}: ${(e as Error).message}`);
    }
    text.split(/\r?\n/).forEach((line, n) => {
      const t = line.trim();
      if (t === '' || t.startsWith('#')) return;
      const m = /^(\S+)\s*(.*)$/.exec(t)!;
      const value = m[2].replace(/^"(.*)"$/, '$1');
      apply(kOptionsByName.get(m[1].toLowerCase()), m[1], value, `${file}:${n + 1}`);
    });
  }
  for (const spec of kOptions) {
    const v = env[envName(spec.name)];
    if (v !== undefined) apply(spec, spec.name, v, envName(spec.name));
  }
  for (const [name, value] of flags) apply(kOptionsByName.get(name), name, value, `--${name}`);
  return config;
}
