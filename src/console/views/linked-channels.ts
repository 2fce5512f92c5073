import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ChannelInfo, WalletAdminClient } from '../../client/index.ts';

/** As many channels as one page holds: the menu and the names of the channel pages use these. */
const LISTED = 1000;

export interface LinkedChannels {
  /** Undefined until the service answered (or when it could not). */
  items: ChannelInfo[] | undefined;
  /** False when the admin is linked to more channels than were listed: the home page pages through them all. */
  complete: boolean;
  /** Lists them again: a channel was created, renamed or archived. */
  reload(): void;
}

/** The channels the signed-in admin is linked to, loaded once per client (a new sign-in may be another admin). */
export function useLinkedChannels(client: WalletAdminClient | undefined): LinkedChannels {
  const [linked, setLinked] = useState<Omit<LinkedChannels, 'reload'>>({ items: undefined, complete: false });
  const [round, setRound] = useState(0);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  const listedFor = useRef(client);
  useEffect(() => {
    // Another admin's client starts from none; a reload keeps the names known meanwhile.
    if (listedFor.current !== client) {
      listedFor.current = client;
      setLinked({ items: undefined, complete: false });
    }
    if (!client) return;
    let current = true;
    client.listChannels({ limit: LISTED }).then(
      (page) => current && setLinked({ items: page.items, complete: page.next === null }),
      // A failure here only costs names and the menu's entries: each view loads and reports its own.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [client, round]);
  return useMemo(() => ({ ...linked, reload }), [linked, reload]);
}
