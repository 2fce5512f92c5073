import type { DirectoryChanges } from '../administration/directory-changes.ts';
import type { WalletAdminClient, WalletSigner } from '../client/index.ts';
import type { Config } from '../config/config.ts';
import type { FileServices } from '../files/file-services.ts';
import type { Who } from '../model/actors.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import type { TerminalText } from './terminal-text.ts';

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  required?: boolean;
  /** What --help shows for the value (default VALUE): FILE, NAME, 0x…. */
  placeholder?: string;
  description: string;
  /** An option of one mode only (help says so; the other mode refuses it); `required` holds in that mode only. */
  only?: Mode;
}

/**
 * Local: on DATA_DIR / DATABASE_URL as the operator, on the server's machine. Remote: over HTTP
 * (--url or --profile) as the admin whose wallet signs, from any machine, with no database access.
 */
export type Mode = 'local' | 'remote';

export type OptionValues = Record<string, string | string[] | boolean | undefined>;

export interface CommandContext {
  values: OptionValues;
  config: Config;
  /** Opens (and migrates) the store of DATA_DIR / DATABASE_URL; closed by the runner. */
  store(): Promise<MetadataStore>;
  /** The file, backup and restore services over the same store and DATA_DIR storage as the server. */
  fileServices(): Promise<FileServices>;
  /** Tenants, admins and channels changed as the operator, each with its audit entry (directory-changes.ts). */
  directory(): Promise<DirectoryChanges>;
  /** Who the local CLI acts as in the audit log: the operator, by OPERATOR_LABEL, with no admin id. */
  operator: Who;
}

/** What a command run over HTTP has: its options, and the client signed in as the admin (asked on first use). */
export interface RemoteContext {
  values: OptionValues;
  client(): Promise<WalletAdminClient>;
  /**
   * The wallet the client signs in with, for what it signs besides (a proposal's intent). A profile
   * signed in by another wallet has no key here: its signer has no signTypedData.
   */
  signer(): Promise<WalletSigner>;
}

/** What a command reports: `json` for --json, `text` for people (terminal-text.ts: stored names in it shown safely). */
export interface CommandResult {
  json: Record<string, unknown>;
  text: TerminalText;
  /** `text` is bytes someone will sign: printed as is, with no newline added unless stdout is a terminal. */
  exact?: boolean;
}

export interface Command {
  words: string[];
  summary: string;
  options: Record<string, OptionSpec>;
  /** The option a lone word after the command fills (`audit verify FILE` is `audit verify --file FILE`). */
  positional?: string;
  /** False for a command with no result to print (serve, which logs): it takes no --json. */
  printsJson?: boolean;
  /** What --help says of where the command runs, when not the mode's usual words (modes.ts). */
  modeNote?: string;
  /** Printed after the options by --help (serve: the settings). */
  moreHelp?: () => string;
  /**
   * The local mode. Long-running commands (serve) own their lifecycle and return nothing to print.
   * Absent for a command that runs over HTTP only.
   */
  run?(context: CommandContext): Promise<CommandResult | undefined>;
  /** The same command over HTTP (remote mode); absent for a command that runs locally only. */
  remote?(context: RemoteContext): Promise<CommandResult>;
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

/** A whole number option within bounds, or the default when absent. */
export function integerOption(values: OptionValues, name: string, bounds: { min: number; max: number; fallback: number }): number {
  const raw = values[name];
  if (raw === undefined) return bounds.fallback;
  const value = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || value < bounds.min || value > bounds.max) {
    throw new UsageError(`Option --${name} must be a whole number from ${bounds.min} to ${bounds.max}`);
  }
  return value;
}

/** Wrong use of the CLI (exit 2), as opposed to a failure of what was asked (exit 1). */
export class UsageError extends Error {
  /** The command whose use was wrong, when known: its --help is the hint. */
  constructor(
    message: string,
    readonly command?: Command,
  ) {
    super(message);
  }
}
