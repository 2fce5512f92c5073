import type { Channel } from '../model/channels.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import type { FileVersion, KeptVersions } from '../model/versions.ts';
import { folderName } from './file-path.ts';

/**
 * The folder's "trash": files deleted and still restorable, by filename, each as its newest
 * 'deleted' version (with those of the folder's look-alike spellings an older release stored).
 * Restoring one is the ordinary restore with that version's id.
 */
export class DeletedFiles {
  constructor(private readonly catalog: KeptVersions) {}

  list(channel: Channel, folder: string, page: PageRequest): Promise<Page<FileVersion>> {
    return this.catalog.listDeleted(channel.id, folderName(folder), page);
  }
}
