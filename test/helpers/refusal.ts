import assert from 'node:assert/strict'

/** An answer from a socket (send, signedFetch) or from Fastify's inject. */
export type AnyAnswer = { status: number; json?: unknown; text?: string } | { statusCode: number; body: string }

/** What a refusal must look like: the status, and the error code of the JSON body when there is one. */
export interface Refusal {
  status: number
  code?: number
}

const statusOf = (answer: AnyAnswer) => ('statusCode' in answer ? answer.statusCode : answer.status)

function codeOf(answer: AnyAnswer): number | undefined {
  const json = 'statusCode' in answer ? parseJson(answer.body) : answer.json
  return (json as { errors?: Array<{ code?: number }> } | undefined)?.errors?.[0]?.code
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const describeAnswer = (answer: AnyAnswer) => `${statusOf(answer)} ${'statusCode' in answer ? answer.body : (answer.text ?? '')}`.slice(0, 300)

/**
 * The shape of every negative test: the broken request is refused as `refusal` says, then the same
 * request unbroken is accepted (`accepted`, 200 unless told). A test written this way cannot pass
 * because every request fails. The broken one goes first, so its refusal is also shown to change
 * nothing the unbroken one needs (a nonce, a single-use token, a rate-limit budget).
 * `request` builds and sends one request, fresh each time (new nonce and timestamp).
 */
export async function assertRefusedOnlyWhenBroken(
  request: (variant: 'broken' | 'unbroken') => Promise<AnyAnswer>,
  refusal: Refusal,
  accepted = 200,
): Promise<void> {
  const broken = await request('broken')
  assert.equal(statusOf(broken), refusal.status, `the broken request: expected ${refusal.status}, got ${describeAnswer(broken)}`)
  if (refusal.code !== undefined) assert.equal(codeOf(broken), refusal.code, `the broken request's error code: ${describeAnswer(broken)}`)
  const unbroken = await request('unbroken')
  assert.equal(statusOf(unbroken), accepted, `the same request unbroken: expected ${accepted}, got ${describeAnswer(unbroken)}`)
}
