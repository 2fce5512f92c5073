import { shownValue } from './redaction.ts';

/**
 * Small typed readers over an environment map. Each collects its problem instead of throwing,
 * so start-up can report every bad setting at once, each by name. A problem quotes the value only
 * through shownValue: never a secret, never a URL's credentials.
 */
export type Env = Record<string, string | undefined>;

export class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got ${shownValue(name, value)})`);
      return fallback;
    }
    return Number(value);
  }

  /** Durations are whole seconds. */
  seconds(name: string, fallback: number, min = 0, max = 10 * 365 * 86400): number {
    return this.integer(name, fallback, min, max);
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    this.problems.push(`${name} must be true or false (got ${shownValue(name, value)})`);
    return fallback;
  }

  oneOf<T extends string>(name: string, choices: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if ((choices as readonly string[]).includes(value)) return value as T;
    this.problems.push(`${name} must be one of ${choices.join(', ')} (got ${shownValue(name, value)})`);
    return fallback;
  }

  list(name: string): string[] | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    return value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  }

  url(name: string, protocols: readonly string[]): URL | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) {
        this.problems.push(`${name} must be a ${protocols.join(' or ')} URL (got a ${parsed.protocol} URL: ${shownValue(name, value)})`);
        return undefined;
      }
      return parsed;
    } catch {
      this.problems.push(`${name} must be an absolute URL (got ${shownValue(name, value)})`);
      return undefined;
    }
  }
}
