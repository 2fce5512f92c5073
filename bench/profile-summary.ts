import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from './lib/checkout.ts';

/**
 * Where a --cpu-prof profile spends its time: self time by area (our modules, each dependency,
 * Node internals, GC, idle) and by function. Usage:
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top 30]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top N]\n');
  process.exit(2);
}
const top = rest[0] === '--top' ? Number(rest[1]) : 30;
const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, ProfileNode>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
const selfMicros = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));

/** The area a frame belongs to: a package name, one of our folders, or a Node/V8 category. */
function areaOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 14).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const local = url.replace(/^file:\/\//, '');
  return local.startsWith(ROOT) ? path.dirname(path.relative(ROOT, local)) : local;
}

const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);
const areas = new Map<string, number>();
const functions = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const node = byId.get(id)!;
  const area = areaOf(node);
  areas.set(area, (areas.get(area) ?? 0) + micros);
  const name = frameName(node, true);
  functions.set(name, (functions.get(name) ?? 0) + micros);
}

/** A frame as `name file:line`; a frame without a script (native code) names its caller. */
function frameName(node: ProfileNode, withCaller: boolean): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const own = `${functionName || '(anonymous)'}${url ? ` ${path.basename(url)}:${lineNumber + 1}` : ''}`;
  const parent = parentOf.get(node.id);
  if (url || !withCaller || functionName.startsWith('(') || !parent) return own;
  return `${own} ← ${frameName(parent, false)}`;
}

const busy = total - (areas.get('(idle)') ?? 0);
const table = (entries: Map<string, number>) =>
  [...entries]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, micros]) => `${(micros / 1000).toFixed(0).padStart(8)} ms ${((100 * micros) / busy).toFixed(1).padStart(5)}%  ${name}`)
    .join('\n');
process.stdout.write(
  `${path.basename(file)}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (percentages of busy)\n\n`,
);
process.stdout.write(`self time by area\n${table(areas)}\n\nself time by function\n${table(functions)}\n`);
