import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { isAppError } from '../errors/app-error.ts';
import type { Actor } from '../files/audit-trail.ts';
import { filePath } from '../files/file-path.ts';
import type { FileServices } from '../files/file-services.ts';
import type { Channel } from '../model/channels.ts';

const README = `Welcome to the wallet-admin demo channel.

These files are examples, seeded on the service's first start so that there is something to look at:
- welcome/prices.csv was backed up once and then changed: its History holds the backup and the
  replaced version, so restoring the backup makes a visible difference (and can be undone).
- reports/q3-summary.md is a plain Markdown file.

Upload, delete, back up and restore freely: nothing here is real data, and the audit log shows
every change with the admin who made it.
`;

const PRICES_BACKED_UP = `item,unit,price_eur
coffee,cup,2.50
tea,cup,2.00
croissant,piece,1.80
`;

// The later upload: the prices went up, and a row was added, so a restore shows at a glance.
const PRICES_NOW = `item,unit,price_eur
coffee,cup,2.90
tea,cup,2.20
croissant,piece,2.10
muffin,piece,2.40
`;

const Q3_SUMMARY = `# Q3 summary (example)

- Revenue: 1,240 EUR, up 8 % on Q2
- Best seller: coffee
- Next: add muffins to the price list (see welcome/prices.csv)
`;

interface DemoFile {
  folder: string;
  filename: string;
  contentType: string;
  text: string;
}

const FIRST_FILES: DemoFile[] = [
  { folder: 'welcome', filename: 'README.txt', contentType: 'text/plain; charset=utf-8', text: README },
  { folder: 'welcome', filename: 'prices.csv', contentType: 'text/csv; charset=utf-8', text: PRICES_BACKED_UP },
  { folder: 'reports', filename: 'q3-summary.md', contentType: 'text/markdown; charset=utf-8', text: Q3_SUMMARY },
];

const CHANGED_PRICES: DemoFile = { ...FIRST_FILES[1]!, text: PRICES_NOW };

/** The steps below, in order, as the seeding reports them done (demo-seed.ts numbers them after its own). */
export const DEMO_FILE_STEPS = [
  ...FIRST_FILES.map((file) => `upload ${file.folder}/${file.filename}`),
  'back the channel up',
  `upload the changed ${CHANGED_PRICES.folder}/${CHANGED_PRICES.filename}`,
] as const;

/** Told when each step is done, or was found done: a test stops the seeding there (test/demo/interrupted-seeding.test.ts). */
export type StepDone = (step: string) => Promise<void> | void;

/**
 * Gives the demo channel files whose history has something to restore: three files, one backup,
 * then a changed prices.csv. It goes through the same services as the API, so the blobs, catalog
 * rows, versions and audit entries are exactly what an admin's requests would have made, by
 * `actor` (the demo owner); only the backup says it is the demo's (origin 'demo'), so that the
 * Backups tab does not claim the owner asked for it.
 *
 * Each step first looks whether it is done, so that a start that stopped midway (Ctrl-C, a crash)
 * is completed by the next one, whatever step it stopped at: every upload and the backup is one
 * commit, there or not. Before the backup, the first three files are uploaded unless they hold
 * their bytes already; after it, only the changed prices.csv remains.
 */
export async function seedDemoFiles(
  services: Pick<FileServices, 'files' | 'backups'>,
  channel: Channel,
  actor: Actor,
  stepDone: StepDone = () => {},
): Promise<void> {
  const holds = async (file: DemoFile) => {
    try {
      const live = await services.files.stat(channel, filePath(file.folder, file.filename));
      return live.sha256 === sha256Of(file.text);
    } catch (error) {
      if (isAppError(error) && error.code === 'FILE_NOT_FOUND') return false;
      throw error;
    }
  };
  const upload = async (file: DemoFile) => {
    if (await holds(file)) return;
    await services.files.put(
      channel,
      actor,
      filePath(file.folder, file.filename),
      Readable.from([Buffer.from(file.text, 'utf8')]),
      file.contentType,
    );
  };
  const backedUp = (await services.backups.list(channel, { limit: 1 })).items.length > 0;
  for (const [index, file] of FIRST_FILES.entries()) {
    if (!backedUp) await upload(file);
    await stepDone(DEMO_FILE_STEPS[index]!);
  }
  if (!backedUp) await services.backups.create(channel, actor, 'demo');
  await stepDone(DEMO_FILE_STEPS[FIRST_FILES.length]!);
  await upload(CHANGED_PRICES);
  await stepDone(DEMO_FILE_STEPS[FIRST_FILES.length + 1]!);
}

function sha256Of(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
