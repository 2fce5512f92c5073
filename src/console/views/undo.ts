import type { ViewContext } from './context.ts';

/** Brings a deleted file back from the version its deletion kept (the newest "deleted" one). */
export async function undoDelete(ctx: ViewContext, channel: string, folder: string, filename: string): Promise<void> {
  const versions = await ctx.client.versions(channel, folder, filename, { limit: 20 });
  const kept = versions.items.find((version) => version.kind === 'deleted');
  if (!kept) throw new Error('The deleted bytes were not found among the versions');
  await ctx.client.restore(channel, folder, filename, { versionId: kept.id });
}
