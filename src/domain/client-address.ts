import ipaddr from 'ipaddr.js'

/**
 * The form of a client address that budgets (per-address rate limits, the sign-in throttle) are
 * kept under, so that writing one address another way never buys a fresh budget:
 * - an IPv4-mapped IPv6 address (`::ffff:198.51.100.99`) is the IPv4 address it maps;
 * - an IPv6 address counts as its /64 network: one subscriber usually holds a whole /64
 *   (RFC 6177), and could otherwise take a new address, and a new budget, for every request;
 * - whatever is not an IP address (a test's label, a Unix socket) is kept as it is.
 * Audit records keep the exact address; only the budget is shared.
 */
export function budgetAddress(address: string): string {
  let budget = remembered.get(address)
  if (budget === undefined) {
    budget = budgetAddressOf(address)
    if (remembered.size >= REMEMBERED_ADDRESSES) remembered.clear()
    remembered.set(address, budget)
  }
  return budget
}

/**
 * Each address's answer, kept: every request's address-limit hook asks, and parsing the address
 * again each time is a visible share of a verified request (bench shape 1). Bounded: when full it starts afresh.
 */
const REMEMBERED_ADDRESSES = 4096
const remembered = new Map<string, string>()

function budgetAddressOf(address: string): string {
  if (!ipaddr.isValid(address)) return address
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv4') return parsed.toString()
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toNormalizedString()}/64`)
  return `${network.toString()}/64`
}

/** Whether `text` is an IPv4 or IPv6 address (what an operator may name to unlock). */
export const isIpAddress = (text: string): boolean => ipaddr.isValid(text)
