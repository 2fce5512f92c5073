import { useEffect, useRef } from 'preact/hooks';
import { hrefOf } from '../routing.ts';
import type { LinkedChannels } from './linked-channels.ts';

/**
 * "Channels" in the top bar: the admin's channels one click away from any page, as docs/console.md's
 * "Restore a file in 30 seconds" says (Channels → demo). A <details> disclosure: keyboard and screen
 * readers work without script; it closes when the view changes (a channel chosen, a link followed,
 * Back), on Escape, and on a click elsewhere.
 */
export function ChannelsMenu({ linked, current }: { linked: LinkedChannels; current: string | undefined }) {
  const menu = useRef<HTMLDetailsElement>(null);
  const close = () => {
    if (menu.current) menu.current.open = false;
  };

  useEffect(() => {
    const outside = (event: Event) => {
      if (menu.current?.open && !menu.current.contains(event.target as Node)) close();
    };
    document.addEventListener('click', outside);
    window.addEventListener('hashchange', close);
    return () => {
      document.removeEventListener('click', outside);
      window.removeEventListener('hashchange', close);
    };
  }, []);

  return (
    <details
      class="menu"
      ref={menu}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && menu.current?.open) {
          close();
          menu.current.querySelector('summary')?.focus();
        }
      }}
    >
      <summary class="menu-button">Channels</summary>
      <div class="menu-panel">
        {linked.items === undefined ? (
          <p class="muted">Loading your channels…</p>
        ) : linked.items.length === 0 ? (
          <p class="muted">You are not linked to any channel yet.</p>
        ) : (
          <ul aria-label="Your channels">
            {linked.items.map((channel) => (
              <li key={channel.id}>
                <a
                  href={hrefOf({ view: 'folders', channel: channel.id })}
                  aria-current={channel.id === current || channel.name === current ? 'page' : undefined}
                  onClick={close}
                >
                  {channel.name}
                </a>
              </li>
            ))}
          </ul>
        )}
        <a class="menu-footer" href={hrefOf({ view: 'home' })} onClick={close}>
          {linked.complete ? 'Home page' : 'All your channels…'}
        </a>
      </div>
    </details>
  );
}
