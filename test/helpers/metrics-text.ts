/** The value of one sample line of a Prometheus exposition, or undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelPart = line.slice(name.length).match(/^\{([^}]*)\}/)?.[1] ?? '';
    if (wanted.every((w) => labelPart.split(',').includes(w))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}
