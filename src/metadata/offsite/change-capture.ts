import { type Kysely, sql } from 'kysely';
import type { Database, Engine } from '../schema.ts';
import { SHIPPED_TABLES } from './shipped-tables.ts';

/**
 * Triggers that write every change of a shipped table into offsite_changes, inside the change's
 * own transaction (migration 022): whatever writes the row (a request, the operator's CLI, a
 * migration) writes its change with it, or neither commits. They exist while OFFSITE_URL is set:
 * `serve` installs them at start and removes them when started without it, so that a service with
 * no target pays nothing. The CLI leaves them as it finds them: the database, not the process,
 * decides whether changes are captured.
 */

const SQLITE_TRIGGER_PREFIX = 'offsite_capture_';
const PG_FUNCTION = 'offsite_capture';
const PG_TRIGGER = 'offsite_capture';

/** Whether this database captures changes now. */
export async function changeCaptureInstalled(db: Kysely<Database>, engine: Engine): Promise<boolean> {
  if (engine === 'postgres') {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_trigger where tgname = ${PG_TRIGGER}`.execute(db);
    return (rows[0]?.n ?? 0) > 0;
  }
  const { rows } = await sql<{
    n: number;
  }>`select count(*) as n from sqlite_master where type = 'trigger' and name like ${`${SQLITE_TRIGGER_PREFIX}%`}`.execute(db);
  return (rows[0]?.n ?? 0) > 0;
}

/**
 * Installs the triggers, or brings them up to date with the schema (a migration that added a
 * column: SQLite's triggers name every column). Answers whether they were absent, in which case
 * nothing captured the changes until now and the copy needs a new snapshot.
 */
export async function installChangeCapture(db: Kysely<Database>, engine: Engine): Promise<{ wasInstalled: boolean }> {
  if (engine === 'postgres') return installPostgres(db);
  return installSqlite(db);
}

/** Removes the triggers (serve without OFFSITE_URL); the changes already captured stay for the shipper's next start to discard. */
export async function removeChangeCapture(db: Kysely<Database>, engine: Engine): Promise<boolean> {
  const was = await changeCaptureInstalled(db, engine);
  if (!was) return false;
  if (engine === 'postgres') {
    await db.transaction().execute(async (trx) => {
      for (const table of SHIPPED_TABLES) await sql.raw(`drop trigger if exists ${PG_TRIGGER} on ${table.name}`).execute(trx);
      await sql.raw(`drop function if exists ${PG_FUNCTION}()`).execute(trx);
    });
    return true;
  }
  await db.transaction().execute(async (trx) => {
    for (const name of await sqliteTriggerNames(trx)) await sql.raw(`drop trigger if exists "${name}"`).execute(trx);
  });
  return true;
}

/** After a migration: triggers that exist are regenerated for the new columns. */
export async function refreshChangeCapture(db: Kysely<Database>, engine: Engine): Promise<void> {
  if (await changeCaptureInstalled(db, engine)) await installChangeCapture(db, engine);
}

async function installPostgres(db: Kysely<Database>): Promise<{ wasInstalled: boolean }> {
  return db.transaction().execute(async (trx) => {
    // Two instances starting together: the second waits here and then finds the triggers.
    await sql`select pg_advisory_xact_lock(hashtext('wallet-admin offsite capture'))`.execute(trx);
    const wasInstalled = await changeCaptureInstalled(trx, 'postgres');
    // txid_current(): the shipper ships a change only once every transaction that may still commit
    // before it has ended (offsite-records.ts, nextChanges); clock_timestamp(): when the row changed.
    await sql
      .raw(`create or replace function ${PG_FUNCTION}() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into offsite_changes (table_name, op, old_key, "row", xid, at)
      values (tg_table_name, 'insert', null, to_jsonb(new)::text, txid_current(), (extract(epoch from clock_timestamp()) * 1000)::bigint);
    return new;
  elsif tg_op = 'UPDATE' then
    insert into offsite_changes (table_name, op, old_key, "row", xid, at)
      values (tg_table_name, 'update', to_jsonb(old)::text, to_jsonb(new)::text, txid_current(), (extract(epoch from clock_timestamp()) * 1000)::bigint);
    return new;
  else
    insert into offsite_changes (table_name, op, old_key, "row", xid, at)
      values (tg_table_name, 'delete', to_jsonb(old)::text, null, txid_current(), (extract(epoch from clock_timestamp()) * 1000)::bigint);
    return old;
  end if;
end $$`)
      .execute(trx);
    for (const table of SHIPPED_TABLES) {
      await sql.raw(`drop trigger if exists ${PG_TRIGGER} on ${table.name}`).execute(trx);
      await sql
        .raw(
          `create trigger ${PG_TRIGGER} after insert or update or delete on ${table.name} for each row execute function ${PG_FUNCTION}()`,
        )
        .execute(trx);
    }
    return { wasInstalled };
  });
}

async function installSqlite(db: Kysely<Database>): Promise<{ wasInstalled: boolean }> {
  return db.transaction().execute(async (trx) => {
    const existing = await sqliteTriggerNames(trx);
    const wanted = new Map<string, string>();
    for (const table of SHIPPED_TABLES) {
      const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${table.name}) order by cid`.execute(trx);
      const row = (prefix: string, columns: readonly string[]) =>
        `json_object(${columns.map((c) => `'${c}', ${prefix}."${c}"`).join(', ')})`;
      const all = rows.map((r) => r.name);
      const at = `cast(unixepoch('subsec') * 1000 as integer)`;
      const insert = (op: string, oldKey: string, newRow: string) =>
        `insert into offsite_changes (table_name, op, old_key, "row", at) values ('${table.name}', '${op}', ${oldKey}, ${newRow}, ${at});`;
      wanted.set(
        `${SQLITE_TRIGGER_PREFIX}${table.name}_insert`,
        `after insert on "${table.name}" begin ${insert('insert', 'null', row('new', all))} end`,
      );
      wanted.set(
        `${SQLITE_TRIGGER_PREFIX}${table.name}_update`,
        `after update on "${table.name}" begin ${insert('update', row('old', table.key), row('new', all))} end`,
      );
      wanted.set(
        `${SQLITE_TRIGGER_PREFIX}${table.name}_delete`,
        `after delete on "${table.name}" begin ${insert('delete', row('old', table.key), 'null')} end`,
      );
    }
    const { rows: current } = await sql<{
      name: string;
      sql: string;
    }>`select name, sql from sqlite_master where type = 'trigger' and name like ${`${SQLITE_TRIGGER_PREFIX}%`}`.execute(trx);
    const currentSql = new Map(current.map((r) => [r.name, r.sql]));
    for (const name of existing) if (!wanted.has(name)) await sql.raw(`drop trigger "${name}"`).execute(trx);
    for (const [name, body] of wanted) {
      const statement = `create trigger "${name}" ${body}`;
      if (currentSql.get(name) === statement) continue;
      if (currentSql.has(name)) await sql.raw(`drop trigger "${name}"`).execute(trx);
      await sql.raw(statement).execute(trx);
    }
    return { wasInstalled: existing.length > 0 };
  });
}

async function sqliteTriggerNames(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{
    name: string;
  }>`select name from sqlite_master where type = 'trigger' and name like ${`${SQLITE_TRIGGER_PREFIX}%`}`.execute(db);
  return rows.map((r) => r.name);
}
