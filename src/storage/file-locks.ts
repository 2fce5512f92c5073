/** Serialises work on one key (a live file) while letting different keys run side by side. */
export interface FileLocks {
  runExclusive<T>(key: string, work: () => Promise<T>): Promise<T>;
}
