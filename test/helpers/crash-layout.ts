/** Where the crash worker (crash-worker.ts) writes, for it and the test that kills it. */
export const CRASH_FOLDER = 'data';
export const CRASH_FILES = ['a.bin', 'b.bin', 'c.bin', 'd.bin'];
