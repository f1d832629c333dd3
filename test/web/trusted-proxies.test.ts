import assert from 'node:assert/strict'
import { test } from 'node:test'
import proxyAddr from '@fastify/proxy-addr'
import { rememberedPerAddress, trustedProxies } from '../../src/web/trusted-proxies.ts'

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

test('each address is checked once while remembered; past its capacity the memory starts afresh, never growing beyond it', () => {
  const asked: string[] = []
  const check = (address: string) => {
    asked.push(address)
    return address.startsWith('10.')
  }
  const trusts = rememberedPerAddress(check, 3)
  for (let round = 0; round < 3; round++) assert.deepEqual(['10.0.0.1', '11.0.0.1', '10.0.0.2'].map((a) => trusts(a, 0)), [true, false, true])
  assert.deepEqual(asked, ['10.0.0.1', '11.0.0.1', '10.0.0.2'], 'three addresses, each asked once')
  // A fourth fills it: it starts afresh with only the fourth, so the first is asked again, once.
  assert.equal(trusts('10.0.0.4', 0), true)
  assert.equal(trusts('10.0.0.4', 0), true)
  assert.equal(trusts('10.0.0.1', 0), true)
  assert.equal(trusts('10.0.0.1', 0), true)
  assert.deepEqual(asked.slice(3), ['10.0.0.4', '10.0.0.1'])
  // Below capacity nothing is forgotten: 11.0.0.1 is asked again only because the reset dropped it.
  assert.equal(trusts('11.0.0.1', 0), false)
  assert.equal(trusts('10.0.0.4', 0), true)
  assert.deepEqual(asked.slice(5), ['11.0.0.1'])
})
