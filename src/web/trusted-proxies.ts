import proxyAddr from '@fastify/proxy-addr'

/** Distinct addresses whose answer is kept: the peers and X-Forwarded-For hops seen lately. */
const REMEMBERED_ADDRESSES = 1024

/**
 * Fastify's `trustProxy` check for a list of addresses and CIDRs, with each address's answer kept:
 * the compiled check parses the address again on every call, and every request behind a proxy asks
 * it several times (the scheme, the host, each X-Forwarded-For hop). A list's answer depends only
 * on the address, never on the hop number. X-Forwarded-For is the client's to write, so the memory
 * is bounded: when full it starts afresh.
 */
export function trustedProxies(list: readonly string[]): (address: string, hop: number) => boolean {
  return rememberedPerAddress(proxyAddr.compile([...list]))
}

/** `check`, asked once per address while at most `capacity` answers are kept; when full, it starts afresh. */
export function rememberedPerAddress(check: (address: string, hop: number) => boolean, capacity = REMEMBERED_ADDRESSES): (address: string, hop: number) => boolean {
  const answers = new Map<string, boolean>()
  return (address, hop) => {
    let answer = answers.get(address)
    if (answer === undefined) {
      answer = check(address, hop)
      if (answers.size >= capacity) answers.clear()
      answers.set(address, answer)
    }
    return answer
  }
}
