import type { Config } from '../config/config.ts';
import type { MetadataStore } from '../store/types.ts';

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  required?: boolean;
  description: string;
}

export type OptionValues = Record<string, string | string[] | boolean | undefined>;

export interface CommandContext {
  values: OptionValues;
  config: Config;
  /** Opens (and migrates) the store of DATA_DIR / DATABASE_URL; closed by the runner. */
  store(): Promise<MetadataStore>;
}

/** What a command reports: `json` for --json, `text` for people. */
export interface CommandResult {
  json: Record<string, unknown>;
  text: string;
}

export interface Command {
  words: string[];
  summary: string;
  options: Record<string, OptionSpec>;
  /** Long-running commands (serve) own their lifecycle and return nothing to print. */
  run(context: CommandContext): Promise<CommandResult | undefined>;
}

export function stringOption(values: OptionValues, name: string): string {
  return values[name] as string;
}

export function optionalString(values: OptionValues, name: string): string | undefined {
  return values[name] as string | undefined;
}

export function listOption(values: OptionValues, name: string): string[] {
  return (values[name] as string[] | undefined) ?? [];
}
