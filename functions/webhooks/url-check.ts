/**
 * Whether a webhook URL may be called (docs/contract.md §6c): `https` only, and every address its host resolves
 * to public — never loopback, private, link-local (the cloud's metadata service among them), shared, multicast,
 * reserved or documentation ranges, nor an IPv6 form that carries an IPv4 address inside (mapped, NAT64, 6to4,
 * Teredo). Checked at registration and again before each delivery, after DNS resolution, and the delivery
 * connects to an address this check passed, so a name that changes its answer in between gains nothing.
 *
 * The local stack may allow `http://localhost` (and its loopback addresses) for receivers on the developer's
 * machine (`ALLOW_LOCAL_WEBHOOKS=1`); nothing else private becomes allowed.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** The longest URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** One resolved address of a host. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (default: the system resolver, as connections use it). */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

export interface UrlCheckOptions {
  /** Whether `http://localhost` (and loopback addresses) is allowed: the local stack's `ALLOW_LOCAL_WEBHOOKS=1`. */
  allowLocal?: boolean;
  resolve?: Resolve;
}

/** A URL that may be called, with the addresses it may be called at. */
export interface AllowedUrl {
  ok: true;
  url: URL;
  addresses: ResolvedAddress[];
}

/** A URL refused, and why (for the `400 invalid_parameter` message and the delivery log). */
export interface RefusedUrl {
  ok: false;
  reason: string;
  /** `true` when the URL is refused only because its host did not resolve (now). */
  unresolved?: true;
}

const systemResolve: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

/** Addresses no webhook may reach. */
const FORBIDDEN = (() => {
  const list = new BlockList();
  const v4: [string, number][] = [
    ['0.0.0.0', 8], // "this network"
    ['10.0.0.0', 8], // private
    ['100.64.0.0', 10], // shared (carrier-grade NAT)
    ['127.0.0.0', 8], // loopback
    ['169.254.0.0', 16], // link-local, the instance metadata service (169.254.169.254) among them
    ['172.16.0.0', 12], // private
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], // documentation
    ['192.88.99.0', 24], // 6to4 relays
    ['192.168.0.0', 16], // private
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24], // documentation
    ['203.0.113.0', 24], // documentation
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, broadcast
  ];
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, 'ipv4');
  const v6: [string, number][] = [
    ['::', 128], // unspecified
    ['::1', 128], // loopback
    // IPv4-mapped addresses (::ffff:a.b.c.d) are judged by the IPv4 ranges above: BlockList maps them.
    ['64:ff9b::', 96], // NAT64
    ['64:ff9b:1::', 48], // local-use NAT64
    ['100::', 64], // discard
    ['2001::', 32], // Teredo
    ['2001:db8::', 32], // documentation
    ['2002::', 16], // 6to4
    ['fc00::', 7], // unique local, the metadata service's IPv6 address (fd00:ec2::254) among them
    ['fe80::', 10], // link-local
    ['fec0::', 10], // site-local (deprecated)
    ['ff00::', 8], // multicast
  ];
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6');
  return list;
})();

const LOOPBACK = (() => {
  const list = new BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  return list;
})();

/** Whether an address is one a webhook may reach. */
export const isPublicAddress = (address: string): boolean => {
  const family = isIP(address);
  if (family === 0) return false;
  return !FORBIDDEN.check(address, family === 6 ? 'ipv6' : 'ipv4');
};

const isLoopback = (address: string): boolean => {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 6 ? 'ipv6' : 'ipv4');
};

const refused = (reason: string): RefusedUrl => ({ ok: false, reason });

const unresolved: RefusedUrl = { ok: false, reason: "the URL's host does not resolve", unresolved: true };

/** The host of a URL as an address literal (brackets of IPv6 removed), or the name. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Checks a webhook URL: its form, then every address its host resolves to.
 *
 * @returns the URL and its addresses, or why it is refused (never throws for a bad URL or a failed lookup).
 */
export const checkWebhookUrl = async (
  text: string,
  options: UrlCheckOptions = {},
): Promise<AllowedUrl | RefusedUrl> => {
  if (text.length > MAX_WEBHOOK_URL_LENGTH)
    return refused(`the URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refused('the URL is not an absolute URL');
  }
  if (url.username !== '' || url.password !== '') return refused('the URL must not carry credentials');
  const host = hostOf(url);
  const local = options.allowLocal === true && (host === 'localhost' || isLoopback(host));
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) return refused('the URL must use https');
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal !== 0) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await (options.resolve ?? systemResolve)(host);
    } catch {
      return unresolved;
    }
  }
  if (addresses.length === 0) return unresolved;
  for (const { address } of addresses) {
    if (local && isLoopback(address)) continue;
    if (!isPublicAddress(address))
      return refused("the URL's host resolves to a loopback, private, link-local or reserved address");
  }
  return { ok: true, url, addresses };
};
