import type { Command } from '../command.ts';
import { setOptions, tenantOption } from './offsite-target-options.ts';
import { removeTargetRemotely, setTargetRemotely, showTargetRemotely, testTargetRemotely } from './offsite-target-remote.ts';

/*
 * A tenant's own off-site copy (docs/offsite.md, "A tenant's own copy"): the tenant's bucket the
 * service ships the tenant's data to, encrypted to the tenant's age recipients. Over HTTP, an admin
 * holding offsite:manage sets, reads, tests and removes it as the API lets it (a policy may hold a
 * change: offsite.change). Locally, the operator reads any tenant's, and sets or removes one, as the
 * operator, recorded in the tenant's chain. A test is the service's: it reaches the bucket from where
 * the service does, with the key only it unseals, and ships what is pending with the shipper that
 * owns the copy (a second shipper in this process would race it), so it runs over HTTP only.
 */

/** The local mode's module (the store's records, the service's checks, the secrets key) loads only for a command run here. */
const local = () => import('./offsite-target-local.ts');

export const offsiteTargetCommands: Command[] = [
  {
    words: ['offsite', 'target', 'show'],
    summary:
      "The tenant's own off-site target: bucket, store, key id, recipients, how far the copy has come, last error and test (never the secret)",
    options: { tenant: tenantOption },
    remote: showTargetRemotely,
    run: async (context) => (await local()).showTargetLocally(context),
  },
  {
    words: ['offsite', 'target', 'set'],
    summary:
      "Ship the tenant's copy to its own bucket, encrypted to its age recipients: sets or replaces the target (the secret never an argument)",
    options: setOptions,
    remote: setTargetRemotely,
    run: async (context) => (await local()).setTargetLocally(context),
  },
  {
    words: ['offsite', 'target', 'remove'],
    summary: "Stop shipping the tenant's own copy: nothing at the target is deleted",
    options: { tenant: tenantOption },
    remote: removeTargetRemotely,
    run: async (context) => (await local()).removeTargetLocally(context),
  },
  {
    words: ['offsite', 'target', 'test'],
    summary: "Have the service reach the tenant's target now with its key, list the copy and ship what is pending; prints what came of it",
    options: {},
    remote: testTargetRemotely,
  },
];
