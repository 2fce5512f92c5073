import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Checkout, otherCheckout, ROOT } from './lib/checkout.ts';
import { describeMachine, type Machine } from './lib/machine.ts';
import { roundTripRow } from './lib/round-trip-count.ts';
import type { BenchContext, Row, Scenario } from './lib/scenario.ts';
import { compareCheckouts, measureLoad } from './lib/service-load.ts';
import { archiveScenario } from './scenarios/archive.ts';
import { authCold, authScenarios, authWarm } from './scenarios/auth.ts';
import { consoleScenario } from './scenarios/console.ts';
import { eventsScenarios } from './scenarios/events.ts';
import { fileScenarios } from './scenarios/files.ts';
import { hotRowsScenario } from './scenarios/hot-rows.ts';
import { idleScenario } from './scenarios/idle.ts';
import { offsiteScenarios } from './scenarios/offsite.ts';
import { quotaUploadsScenario } from './scenarios/quota-uploads.ts';
import { resumableScenario } from './scenarios/resumable.ts';
import { smallFilesScenario } from './scenarios/small-files.ts';
import { restoreSmall, uploadSmall } from './scenarios/small-writes.ts';

const postgresMode: Scenario = {
  name: 'postgres',
  summary:
    'auth-warm, auth-cold, restore-small and upload-small again with DATABASE_URL (PostgreSQL on 127.0.0.1:5432), and the round trips to PostgreSQL of one restore and one upload',
  run: async (c) => [
    ...(await authWarm(c, 'postgres')),
    await authCold(c, 'postgres'),
    await measureLoad(c, 'postgres', restoreSmall),
    await measureLoad(c, 'postgres', uploadSmall),
    await roundTripRow(c, restoreSmall),
    await roundTripRow(c, uploadSmall),
  ],
  // The auth rows compare the service with baseline servers, not with another checkout: only the loads on the service alone.
  against: async (c, other) => [
    await compareCheckouts(c, 'postgres', restoreSmall, other),
    await compareCheckouts(c, 'postgres', uploadSmall, other),
    await roundTripRow(c, restoreSmall, other),
    await roundTripRow(c, uploadSmall, other),
  ],
};
const SCENARIOS: Scenario[] = [
  ...authScenarios,
  ...fileScenarios,
  postgresMode,
  consoleScenario,
  ...offsiteScenarios,
  ...eventsScenarios,
  archiveScenario,
  quotaUploadsScenario,
  hotRowsScenario,
  resumableScenario,
  smallFilesScenario,
  idleScenario,
];
/** The scenarios --against can run: their loads are on the service alone, with no baseline server of their own. */
const COMPARABLE = SCENARIOS.filter((s) => s.against).map((s) => s.name);

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    duration: { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    smoke: { type: 'boolean', default: false },
    profile: { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
    against: { type: 'string' },
    // Records in bench/results only, leaving the table in docs/development.md as it is.
    'no-docs': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  process.stdout.write(
    `npm run bench [-- [scenario …] [--duration s] [--runs n] [--warmup s] [--smoke] [--profile dir] [--env KEY=VALUE …] [--against dir] [--no-docs]]\n\n` +
      `${SCENARIOS.map((s) => `  ${s.name.padEnd(20)} ${s.summary}`).join('\n')}\n\n` +
      `--against dir: the named scenarios (of ${COMPARABLE.join(', ')}) on this checkout's service and on that of the checkout in dir\n` +
      `  (installed and built there with npm ci), their runs interleaved; both figures and their ratios printed, nothing recorded\n` +
      `--no-docs: record in bench/results only, not in docs/development.md's table\n`,
  );
  process.exit(0);
}
const unknown = positionals.filter((name) => !SCENARIOS.some((s) => s.name === name));
if (unknown.length > 0) {
  process.stderr.write(`unknown scenario(s): ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}\n`);
  process.exit(2);
}
const chosen = positionals.length > 0 ? SCENARIOS.filter((s) => positionals.includes(s.name)) : SCENARIOS;
const against = values.against === undefined ? undefined : await againstCheckout(values.against, chosen);

const smoke = values.smoke;
const context: BenchContext = {
  durationSeconds: smoke ? 2 : Number(values.duration),
  runs: smoke ? 1 : Number(values.runs),
  warmupSeconds: smoke ? 1 : Number(values.warmup),
  smoke,
  logDir: await mkdtemp(path.join(os.tmpdir(), 'wa-bench-logs-')),
  serviceEnv: Object.fromEntries(values.env.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])),
  ...(values.profile ? { profileDir: path.resolve(values.profile) } : {}),
  log: (line) => process.stderr.write(`${line}\n`),
};

const rows: Row[] = [];
const failed: string[] = [];
for (const scenario of chosen) {
  context.log(`▶ ${scenario.name}`);
  const started = Date.now();
  let produced: Row[];
  try {
    produced = against ? await scenario.against!(context, against) : await scenario.run(context);
  } catch (error) {
    // One broken scenario must not cost the others' results.
    failed.push(scenario.name);
    context.log(`  ${scenario.name} FAILED: ${error instanceof Error ? error.message : String(error)}`);
    continue;
  }
  for (const row of produced) {
    rows.push(row);
    context.log(
      `  ${row.scenario} [${row.engine ?? ''}]: ${row.measured}${row.baseline ? ` | ${row.baseline}` : ''}${row.ratio !== undefined ? ` | ×${row.ratio}` : ''}${row.cpuRatio !== undefined ? ` | CPU/request ×${row.cpuRatio}` : ''}${row.met !== undefined ? ` | ${row.met ? 'met' : 'NOT met'}` : ''}`,
    );
  }
  // Recorded as each scenario ends, so that an interrupted run keeps what it measured; a run under
  // the profiler is slower and records nothing, nor does a comparison of two checkouts: its rows are
  // about the other checkout, not figures of this one against its targets.
  if (!smoke && !context.profileDir && !against) await record(produced);
  context.log(`  (${Math.round((Date.now() - started) / 1000)} s)`);
}

if (against) {
  const file = path.join(context.logDir, 'against.json');
  await writeFile(file, `${JSON.stringify({ machine: describeMachine(), settings: settingsOf(context), against, rows }, null, 2)}\n`);
  process.stdout.write(`${againstTable(rows)}\nevery run: ${file}; results not recorded (a comparison of two checkouts)\n`);
} else if (context.profileDir)
  process.stdout.write(`profiles in ${context.profileDir}; results not recorded (the profiler slows the service)\n`);
else if (smoke)
  process.stdout.write(
    `bench smoke: ${rows.length} rows from ${chosen.length - failed.length} of ${chosen.length} scenarios, results not recorded\n`,
  );
else
  process.stdout.write(
    `${await readFile(path.join(ROOT, 'bench/results/latest.md'), 'utf8').catch(() => '')}\nwritten: bench/results/latest.json, bench/results/latest.md${values['no-docs'] ? '' : ', docs/development.md'}\n`,
  );
if (failed.length > 0) {
  process.stderr.write(`failed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}

/**
 * The checkout named by --against, checked ready to serve; and every chosen scenario must be able to
 * compare two checkouts (the others measure the service against baselines of their own).
 */
async function againstCheckout(folder: string, scenarios: Scenario[]): Promise<Checkout> {
  const unable = scenarios.filter((s) => !s.against).map((s) => s.name);
  const fail = (message: string): never => {
    process.stderr.write(`${message}\n`);
    process.exit(2);
  };
  if (positionals.length === 0) fail(`--against compares the scenarios named: some of ${COMPARABLE.join(', ')}`);
  if (unable.length > 0) fail(`--against: ${unable.join(', ')} cannot compare two checkouts; these can: ${COMPARABLE.join(', ')}`);
  return otherCheckout(folder).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
}

function settingsOf(c: BenchContext) {
  return { durationSeconds: c.durationSeconds, runs: c.runs, warmupSeconds: c.warmupSeconds };
}

/** The rows of a comparison of two checkouts, for stdout. */
function againstTable(rows: Row[]): string {
  return [
    '| Scenario | Engine | This checkout | Other checkout | req/s this ÷ other | CPU/request this ÷ other |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) => `| ${r.scenario} | ${r.engine ?? ''} | ${r.measured} | ${r.baseline ?? ''} | ${r.ratio ?? ''} | ${r.cpuRatio ?? ''} |`,
    ),
    '',
  ].join('\n');
}

/** Merges the rows into bench/results/latest.json (a run of some scenarios keeps the others), then writes the table. */
async function record(newRows: Row[]): Promise<void> {
  const directory = path.join(ROOT, 'bench/results');
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, 'latest.json');
  const previous = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as { rows: (Row & { machine: Machine })[] },
    () => ({ rows: [] }),
  );
  const machine = describeMachine();
  const settings = settingsOf(context);
  // A scenario run again replaces its rows on the engines it ran on, also those whose name changed
  // (another size): rows of the scenario that it no longer produces would pass for current.
  const scenarioOf = (row: Row) =>
    SCENARIOS.find((s) => row.scenario === s.name || row.scenario.startsWith(`${s.name} `))?.name ?? row.scenario;
  const key = (row: Row) => `${scenarioOf(row)}|${row.engine ?? ''}`;
  const fresh = newRows.map((row) => ({ ...row, machine, settings }));
  const merged = [...previous.rows.filter((row) => !fresh.some((r) => key(r) === key(row))), ...fresh];
  const order = (row: Row) =>
    SCENARIOS.findIndex((s) => row.scenario.startsWith(s.name)) * 10 + (row.engine?.startsWith('postgres') ? 5 : 0);
  merged.sort((a, b) => order(a) - order(b));
  await writeFile(file, `${JSON.stringify({ machine, rows: merged }, null, 2)}\n`);
  const table = markdownTable(merged);
  await writeFile(path.join(directory, 'latest.md'), table);
  if (!values['no-docs']) await updateDevelopmentDoc(table);
}

function markdownTable(rows: (Row & { machine?: Machine })[]): string {
  const machines = new Map<string, string[]>();
  for (const row of rows) {
    if (!row.machine) continue;
    const { date, ...machine } = row.machine;
    const m = machine as Omit<Machine, 'date'>;
    const key = `${m.cpuModel} × ${m.cpuCount}, ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}`;
    machines.set(key, [...(machines.get(key) ?? []), date]);
  }
  const minute = (date: string) => date.slice(0, 16).replace('T', ' ');
  const lines = [
    '| Scenario | Engine | Measured | Baseline | Ratio | Target | Met |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.engine ?? ''} | ${r.measured} | ${r.baseline ?? ''} | ${r.ratio ?? ''}${r.cpuRatio === undefined ? '' : ` (CPU ×${r.cpuRatio})`} | ${r.target ?? ''} | ${r.met === undefined ? '' : r.met ? 'yes' : 'no'} |`,
    ),
    '',
    'Ratio: as its target reads. (CPU ×n): the server CPU time per request of the measured side ÷ its baseline’s.',
    '',
    ...[...machines].map(([machine, dates]) => {
      const sorted = dates.sort();
      const when = minute(sorted[0]!) === minute(sorted.at(-1)!) ? minute(sorted[0]!) : `${minute(sorted[0]!)} – ${minute(sorted.at(-1)!)}`;
      return `Machine: ${machine}; run ${when} UTC.`;
    }),
    '',
  ];
  return lines.join('\n');
}

async function updateDevelopmentDoc(table: string): Promise<void> {
  // The table lives in docs/development.md's Benchmarks section, between its markers.
  const file = path.join(ROOT, 'docs/development.md');
  const doc = await readFile(file, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  if (!doc.includes(start) || !doc.includes(end)) return;
  await writeFile(file, `${doc.slice(0, doc.indexOf(start) + start.length)}\n${table}${doc.slice(doc.indexOf(end))}`);
}
