import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';

/**
 * Another process holding the write lock of a SQLite file: it begins an immediate transaction on
 * FILE, prints `locked`, keeps the lock for HOLD_MS milliseconds, commits and exits. Plain
 * better-sqlite3, not the store's code: this is the other writer, not the code under test.
 */
const sqlite = new SQLite(process.env.FILE!);
sqlite.exec('begin immediate');
process.stdout.write('locked\n');
await sleep(Number(process.env.HOLD_MS));
sqlite.exec('commit');
sqlite.close();
