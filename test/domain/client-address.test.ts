import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { budgetAddress } from '../../src/domain/client-address.ts'

/** The address a budget is kept under: one budget however an address is written (src/domain/client-address.ts). */
describe('budgetAddress', () => {
  test('an IPv4 address is its own budget; written as IPv4-mapped IPv6 it is the same one', () => {
    assert.equal(budgetAddress('198.51.100.99'), '198.51.100.99')
    assert.equal(budgetAddress('::ffff:198.51.100.99'), '198.51.100.99')
    assert.equal(budgetAddress('::FFFF:c633:6463'), '198.51.100.99')
    assert.notEqual(budgetAddress('198.51.100.98'), budgetAddress('198.51.100.99'))
  })

  test('an IPv6 address counts as its /64, however it is written; another /64 is another budget', () => {
    assert.equal(budgetAddress('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64')
    assert.equal(budgetAddress('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64')
    assert.equal(budgetAddress('2001:db8:1:3::1'), '2001:db8:1:3::/64')
  })

  test('what is not an IP address is kept as it is', () => {
    assert.equal(budgetAddress('a test label'), 'a test label')
    assert.equal(budgetAddress(''), '')
    assert.equal(budgetAddress('198.51.100.256'), '198.51.100.256')
  })

  test('the answers stay the same when many addresses have been seen (the remembered answers start afresh)', () => {
    for (let i = 0; i < 10_000; i++) assert.equal(budgetAddress(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`), `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`)
    assert.equal(budgetAddress('::ffff:198.51.100.99'), '198.51.100.99')
    assert.equal(budgetAddress('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64')
  })
})
