import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { SIGNATURE_HEADER, webhookSignature } from '../../src/protocol/webhook-signature.ts'

describe('webhook signatures (X Account Activity API)', () => {
  test('HMAC-SHA256 of the payload under the secret, base64, after sha256=', () => {
    // Made with: printf 'crc-token-1' | openssl dgst -sha256 -hmac 'whsec_example' -binary | base64
    assert.equal(webhookSignature('whsec_example', 'crc-token-1'), 'sha256=n5BgXRLVL7AcYFmILOi+bI2zgCAYdYh3MqLOhSOmn9c=')
    // The payload is read as UTF-8: printf 'é' | openssl dgst -sha256 -hmac 'k' -binary | base64
    assert.equal(webhookSignature('k', 'é'), 'sha256=QbCOSDeQYNVWY2MIPavUsvmv1uFpryLSZSLb3F56UTQ=')
    assert.notEqual(webhookSignature('whsec_other', 'crc-token-1'), webhookSignature('whsec_example', 'crc-token-1'))
  })

  test('is carried in X-Latchkey-Signature', () => {
    assert.equal(SIGNATURE_HEADER, 'x-latchkey-signature')
  })
})
