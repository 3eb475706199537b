// The unit a per-address limit counts. An IPv6 host is handed a whole /64 and may use any of its
// 2^64 addresses, so counting single IPv6 addresses would let it start afresh with each request:
// limits count its /64. An IPv4 address (also written as an IPv4-mapped IPv6 one) is itself.
import ipaddr from 'ipaddr.js';

export function addressGroup(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
