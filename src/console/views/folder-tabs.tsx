import { hrefOf } from '../routing.ts';

/** A folder's live files, and what was deleted from it. */
export function FolderTabs({ channel, folder, current }: { channel: string; folder: string; current: 'files' | 'deleted' }) {
  const tabs = [
    { id: 'files', label: 'Files', href: hrefOf({ view: 'files', channel, folder }) },
    { id: 'deleted', label: 'Deleted files', href: hrefOf({ view: 'deleted', channel, folder }) },
  ] as const;
  return (
    <nav class="subtabs" aria-label={`${folder} sections`}>
      {tabs.map((tab) => (
        <a
          key={tab.id}
          href={tab.href}
          class={tab.id === current ? 'subtab subtab-current' : 'subtab'}
          aria-current={tab.id === current ? 'page' : undefined}
        >
          {tab.label}
        </a>
      ))}
    </nav>
  );
}
