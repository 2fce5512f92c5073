import type { Page, PageRequest } from './types.ts';

/**
 * Every item of a paged list, fetching the next page only when the caller has consumed the
 * previous one (a `for await` that breaks early fetches no more):
 *
 *   for await (const file of paginate((page) => client.listFiles('demo', 'docs', page))) …
 */
export async function* paginate<T>(
  fetchPage: (page: PageRequest) => Promise<Page<T>>,
  options: { limit?: number } = {},
): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage({
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    yield* page.items;
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
}
