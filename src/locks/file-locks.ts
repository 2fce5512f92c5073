/** Serialises work on one key (a live file) while letting different keys run side by side. */
export interface FileLocks {
  runExclusive<T>(key: string, work: () => Promise<T>): Promise<T>;
}

/** Locks as opened for a process: what they hold open (database connections) is released by close(). */
export interface OpenedFileLocks extends FileLocks {
  close(): Promise<void>;
}
