import type { BlobStorage } from '../blobs/blob-storage.ts';
import { AppError } from '../errors/app-error.ts';
import type { MetadataStore } from '../model/metadata-store.ts';

/** Whether this instance can serve: the metadata database and the file storage both answer. */
export class Readiness {
  constructor(
    private readonly store: Pick<MetadataStore, 'ping'>,
    private readonly blobs: Pick<BlobStorage, 'ping'>,
  ) {}

  async check(): Promise<void> {
    try {
      await this.store.ping();
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', 'The metadata database does not answer');
    }
    await this.blobs.ping();
  }
}
