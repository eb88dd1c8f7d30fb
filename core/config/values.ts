/**
 * Parsing and formatting of option values (Redis syntax: `512mb`, `yes`/`no`, octal perms).
 * Each returns the parsed value or a message for the one error the user sees.
 */
import type { OptionSpec } from './options';

export type OptionValue = number | string | boolean;

const kUnits: Record<string, number> = {
  '': 1, b: 1, k: 1000, kb: 1024, m: 1000 ** 2, mb: 1024 ** 2, g: 1000 ** 3, gb: 1024 ** 3,
};

export function parseMemory(text: string): number | undefined {
  const m = /^(-?\d+)([a-z]*)$/i.exec(text.trim());
  if (m === null) return undefined;
  const unit = kUnits[m[2].toLowerCase()];
  return unit === undefined ? undefined : Number(m[1]) * unit;
}

export function parseValue(spec: OptionSpec, text: string): OptionValue | { error: string } {
  switch (spec.type) {
    case 'int':
    case 'bytes':
    case 'octal': {
      if (spec.type === 'bytes') {
        // Redis's memory options (memtoull): digits and a unit, no sign, no spaces
        const n = /^\d+[a-z]*$/i.test(text) ? parseMemory(text) : undefined;
        if (n === undefined || !Number.isSafeInteger(n)) return { error: 'argument must be a memory value' };
        if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
          return { error: `argument must be between ${spec.min} and ${spec.max} inclusive` };
        }
        return n;
      }
      const n = spec.type === 'octal' ? (/^[0-7]+$/.test(text) ? parseInt(text, 8) : undefined)
        : /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
      if (n === undefined || !Number.isSafeInteger(n)) return { error: "argument couldn't be parsed into an integer" };
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        return { error: `argument must be between ${spec.min} and ${spec.max} inclusive` };
      }
      return n;
    }
    case 'bool': {
      const t = text.toLowerCase();
      if (t === 'yes' || t === 'true' || t === '1') return true;
      if (t === 'no' || t === 'false' || t === '0' || t === '') return false;
      return { error: 'argument must be \'yes\' or \'no\'' };
    }
    case 'enum': {
      const t = text.toLowerCase();
      if (spec.values?.includes(t)) return t;
      return { error: `argument(s) must be one of the following: ${spec.values?.join(', ')}` };
    }
    case 'string':
      return text;
  }
}

export function formatValue(spec: OptionSpec, v: OptionValue): string {
  if (spec.type === 'bool') return v ? 'yes' : 'no';
  if (spec.type === 'octal') return (v as number).toString(8);
  return String(v);
}
