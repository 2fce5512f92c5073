import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { classifyAddress, isMetadataAddress } from './address-ranges.ts';
import type { OutboundAllow } from './outbound-allow.ts';

/**
 * A DNS lookup for the sockets of a client that reaches a tenant's host (a tenant's own bucket):
 * every connection's answer passes the outbound rules again, so a name that resolved to a public
 * address when it was set and resolves to a private one now (DNS rebinding) is refused at connect
 * time, not reached. Addresses given literally never pass through here: they were checked when
 * set (checkOutboundUrl), and cannot change.
 */
export function guardedLookup(allow: OutboundAllow): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const refused = addresses.find(({ address }) => {
        if (classifyAddress(address).ok) return false;
        if (isMetadataAddress(address)) return true;
        return !allow.allowsHost(hostname.replace(/\.$/, '')) && !allow.allowsAddress(address);
      });
      if (refused !== undefined || addresses.length === 0) {
        const why = refused
          ? `${hostname} resolves to ${refused.address}, which the outbound rules refuse (OUTBOUND_ALLOW)`
          : `${hostname} resolves to no address`;
        callback(Object.assign(new Error(why), { code: 'OUTBOUND_ADDRESS_REFUSED' }), '', 0);
        return;
      }
      if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
