import type { Kysely } from 'kysely';
import { storedForm } from '../names/name-form.ts';
import { canBeStoredKey } from './input-validation.ts';
import type { Database, LegacySpellingsTable } from './schema.ts';

export type SpellingKind = LegacySpellingsTable['kind'];

/**
 * The spellings a name may be stored under: its NFC form, under which every name is stored from
 * migration 015 on, and the other forms older releases stored it in (listed by that migration).
 */
export interface LegacySpellings {
  /**
   * `name` in NFC first, then every other spelling of it stored in `scopeId` (a channel for
   * folders and files, a tenant for channels): one element for all but an older release's names.
   */
  of(scopeId: string, kind: SpellingKind, name: string): Promise<string[]>;
  /** The same in every scope: the CLI's hint names the tenants that have a channel of a name. */
  inEveryScope(kind: SpellingKind, name: string): Promise<string[]>;
}

/**
 * Read from legacy_spellings, which nothing writes after its migration: which scopes hold any
 * spelling is read once per store and kept, so that a scope without one (every scope written by
 * this release) costs no query at all.
 */
export function legacySpellings(db: Kysely<Database>): LegacySpellings {
  let scopes: Promise<Set<string>> | undefined;
  const scopeKey = (kind: SpellingKind, scopeId: string) => `${kind}:${scopeId}`;
  const scopesWithSpellings = (): Promise<Set<string>> => {
    scopes ??= db
      .selectFrom('legacy_spellings')
      .select(['kind', 'scope_id'])
      .distinct()
      .execute()
      .then((rows) => new Set(rows.flatMap((row) => [scopeKey(row.kind, row.scope_id), scopeKey(row.kind, '*')])))
      // An outage is not remembered: the next caller asks again.
      .catch((error: unknown) => {
        scopes = undefined;
        throw error;
      });
    return scopes;
  };
  const spellingsWhere = async (kind: SpellingKind, name: string, scopeId: string | undefined): Promise<string[]> => {
    const normalized = storedForm(name);
    if (!canBeStoredKey(normalized)) return [normalized];
    if (!(await scopesWithSpellings()).has(scopeKey(kind, scopeId ?? '*'))) return [normalized];
    let query = db.selectFrom('legacy_spellings').select('spelling').where('kind', '=', kind).where('name', '=', normalized);
    if (scopeId !== undefined) query = query.where('scope_id', '=', scopeId);
    const rows = await query.orderBy('spelling').execute();
    return [normalized, ...new Set(rows.map((row) => row.spelling))];
  };
  return {
    of: (scopeId, kind, name) => spellingsWhere(kind, name, scopeId),
    inEveryScope: (kind, name) => spellingsWhere(kind, name, undefined),
  };
}
