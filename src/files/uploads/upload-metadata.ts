import { AppError } from '../../errors/app-error.ts';

/** What the Upload-Metadata header of a creation names (docs/uploads.md). */
export interface UploadTarget {
  folder: string;
  filename: string;
  /** The stored Content-Type; undefined: from the file name, as a PUT without one. */
  contentType: string | undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const KEY = /^[^\s,]+$/;

/**
 * Reads tus's Upload-Metadata: comma-separated pairs of a key and its value in base64 (a key
 * alone has no value). `folder` and `filename` name the file the upload becomes, `contentType`
 * its type. Other keys are the client's own (tus-js-client and Uppy add some): kept, answered
 * back by HEAD as sent, and not used. A malformed header, a key given twice or a value that is not
 * UTF-8 is refused: a target half-read would store the file under another name.
 */
export function parseUploadMetadata(header: string | undefined): UploadTarget {
  if (header === undefined || header.trim() === '') throw invalid('Upload-Metadata is required: folder and filename, each base64');
  const values = new Map<string, string>();
  for (const pair of header.split(',')) {
    const [key, value, ...rest] = pair.trim().split(' ');
    if (key === undefined || !KEY.test(key) || rest.length > 0) throw invalid(`Upload-Metadata has a malformed pair: "${pair.trim()}"`);
    if (values.has(key)) throw invalid(`Upload-Metadata names "${key}" twice`);
    if (value !== undefined && (!BASE64.test(value) || value.length % 4 === 1)) throw invalid(`Upload-Metadata's "${key}" is not base64`);
    values.set(key, value === undefined ? '' : decodeUtf8(key, value));
  }
  const folder = values.get('folder');
  const filename = values.get('filename');
  if (!folder) throw invalid('Upload-Metadata must name the folder (key "folder")');
  if (!filename) throw invalid('Upload-Metadata must name the file (key "filename")');
  const contentType = values.get('contentType');
  return { folder, filename, contentType: contentType === '' ? undefined : contentType };
}

function decodeUtf8(key: string, value: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'base64'));
  } catch {
    throw invalid(`Upload-Metadata's "${key}" is not UTF-8`);
  }
}

const invalid = (message: string) => new AppError('VALIDATION_FAILED', message);
