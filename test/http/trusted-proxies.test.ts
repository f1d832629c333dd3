import assert from 'node:assert/strict'
import { test } from 'node:test'
import proxyAddr from '@fastify/proxy-addr'
import { trustedProxies } from '../../src/http/trusted-proxies.ts'

const LIST = ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']
const ADDRESSES = ['127.0.0.1', '127.0.0.2', '10.1.2.3', '11.0.0.1', '::1', '::ffff:127.0.0.1', 'fd12::1', 'fe80::1', '192.168.0.1', 'not an address', '']

test('answers exactly as the compiled check, asked once or many times', () => {
  const compiled = proxyAddr.compile(LIST)
  const trusts = trustedProxies(LIST)
  for (let round = 0; round < 3; round++) {
    for (const [hop, address] of ADDRESSES.entries()) assert.equal(trusts(address, hop), compiled(address, hop), `${JSON.stringify(address)}, round ${round}`)
  }
})

test('stays right after more distinct addresses than it keeps (a client writing X-Forwarded-For)', () => {
  const compiled = proxyAddr.compile(LIST)
  const trusts = trustedProxies(LIST)
  for (let i = 0; i < 3000; i++) {
    const address = `10.0.${(i >> 8) & 255}.${i & 255}`
    const stranger = `11.0.${(i >> 8) & 255}.${i & 255}`
    assert.equal(trusts(address, 0), true)
    assert.equal(trusts(stranger, 0), false)
  }
  for (const address of ADDRESSES) assert.equal(trusts(address, 0), compiled(address, 0), address)
})
