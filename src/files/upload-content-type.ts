import { AppError } from '../errors/app-error.ts';

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
const UNKNOWN = 'application/octet-stream';

/**
 * What curl sends when asked for nothing: `--data-binary @file` labels the bytes
 * application/x-www-form-urlencoded, which they are not (a file is never an HTML form), so the
 * label says as little as no label at all.
 */
const NO_TYPE_GIVEN = new Set(['', 'application/x-www-form-urlencoded']);

/** The common files of an admin's folders by extension, for an upload that names no type. */
const BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ics: 'text/calendar',
  json: 'application/json',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  pdf: 'application/pdf',
  rtf: 'application/rtf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  '7z': 'application/x-7z-compressed',
  wasm: 'application/wasm',
  epub: 'application/epub+zip',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  ico: 'image/vnd.microsoft.icon',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
};

/**
 * The type an upload is stored with (and later downloaded with): the Content-Type sent, without
 * its parameters; when none is given (no header, or curl's form default), the type the file name's
 * extension usually has, else application/octet-stream. A form upload (`curl -F`) is refused: its
 * body is a multipart wrapper around the file, which would be stored as the file's bytes.
 */
export function uploadContentType(header: string | undefined, filename: string): string {
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'multipart/form-data') {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      'An upload is the bytes of the file, not an HTML form (multipart/form-data): use curl --data-binary @file (or -T file), not -F',
    );
  }
  if (NO_TYPE_GIVEN.has(type)) return typeOfName(filename);
  return MEDIA_TYPE.test(type) ? type : UNKNOWN;
}

function typeOfName(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return (dot > 0 && BY_EXTENSION[filename.slice(dot + 1).toLowerCase()]) || UNKNOWN;
}
