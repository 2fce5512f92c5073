import type { Checkout } from './checkout.ts';

/** One line of the results table. */
export interface Row {
  scenario: string;
  engine?: string;
  measured: string;
  baseline?: string;
  ratio?: number;
  /**
   * CPU time per request of the measured side ÷ the baseline's (both server processes, read from
   * /proc), where the baseline is a server of its own: shown beside the ratio.
   */
  cpuRatio?: number;
  target?: string;
  met?: boolean;
  /** Everything measured, for latest.json. */
  details: Record<string, unknown>;
}

export interface BenchContext {
  durationSeconds: number;
  runs: number;
  warmupSeconds: number;
  /** A short run that only proves each scenario still works (CI); sizes shrink, nothing is recorded. */
  smoke: boolean;
  /** Where servers write their logs during the run. */
  logDir: string;
  /** Settings given with --env, applied to every service the run starts (to compare configurations). */
  serviceEnv: Record<string, string>;
  /** When set, the service runs under --cpu-prof and writes its profiles here. */
  profileDir?: string;
  log(line: string): void;
}

export interface Scenario {
  name: string;
  /** One sentence for bench/README.md and --help. */
  summary: string;
  run(context: BenchContext): Promise<Row[]>;
  /**
   * The scenario with this checkout's service interleaved with `other`'s (--against): a row per
   * measurement with both figures and their ratios. Absent where the scenario cannot compare two
   * checkouts (its baseline is not the service).
   */
  against?(context: BenchContext, other: Checkout): Promise<Row[]>;
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
export const perSecond = (value: number, unit = 'req/s') => `${Math.round(value).toLocaleString('en-US')} ${unit}`;
/** A server's CPU time per request answered, the figure beside requests/s. */
export const cpuPerRequest = (microseconds: number) => `${Math.round(microseconds).toLocaleString('en-US')} µs CPU/request`;
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** "1.21 (1.15–1.30, 5 pairs)": the median of a comparison's pair figures and their range. */
export const spreadText = (spread: { median: number; min: number; max: number; values: number[] }, digits = 2) =>
  `${round(spread.median, digits)} (${round(spread.min, digits)}–${round(spread.max, digits)}, ${spread.values.length} pairs)`;
