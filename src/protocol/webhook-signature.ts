import { createHmac } from 'node:crypto'

/**
 * X's webhook signatures (Account Activity API): HMAC-SHA256 under the endpoint's secret, base64,
 * after `sha256=`. The same value answers a CRC challenge (of its crc_token) and signs a delivery
 * (of its raw body, in X-Latchkey-Signature).
 */
export function webhookSignature(secret: string, payload: string): string {
  return `sha256=${createHmac('sha256', secret).update(payload, 'utf8').digest('base64')}`
}

/** The header that carries a delivery's signature. */
export const SIGNATURE_HEADER = 'x-latchkey-signature'
