import { connect } from 'node:net'

// Raw HTTP for the fuzzes of the admin API and the pages: every request is written byte for byte on
// its own connection, so that anything can be sent (invalid UTF-8 in the path, NUL in a header, a
// body on a GET, a method fetch refuses).

export interface Attempt {
  /** What the attempt aims at: an operation id, a page, or `raw`. */
  aim: string
  /** How it was broken, for the report. */
  how: string
  method: string
  /** Request target as bytes (latin1: each char one byte). */
  target: string
  headers: Array<[string, string]>
  body?: Buffer
  /** Instead of a request built from the fields above: these bytes. */
  raw?: Buffer
  /** Sent with a live admin token or session and CSRF value (reaches the validators). */
  authenticated: boolean
  /** A write that must be refused (4xx): it is broken by construction. */
  mustRefuse: boolean
  /** A well-formed request to a page route with its method: any refusal must be an HTML page. */
  routedPage?: boolean
}

export interface Answer {
  status: number
  headers: Map<string, string[]>
  body: string
}

export const header = (answer: Answer, name: string) => answer.headers.get(name)?.[0] ?? ''

export function requestBytes(attempt: Attempt, port: number): Buffer {
  if (attempt.raw) return attempt.raw
  const lines = [`${attempt.method} ${attempt.target} HTTP/1.1`]
  if (!attempt.headers.some(([name]) => name.toLowerCase() === 'host')) lines.push(`Host: 127.0.0.1:${port}`)
  for (const [name, value] of attempt.headers) lines.push(`${name}: ${value}`)
  if (attempt.body && !attempt.headers.some(([name]) => name.toLowerCase() === 'content-length')) lines.push(`Content-Length: ${attempt.body.length}`)
  lines.push('Connection: close', '', '')
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), attempt.body ?? Buffer.alloc(0)])
}

function parseAnswer(bytes: Buffer): Answer | undefined {
  const end = bytes.indexOf('\r\n\r\n')
  if (end === -1) return undefined
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0)
  if (!status) return undefined
  const headers = new Map<string, string[]>()
  for (const line of lines) {
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).trim().toLowerCase()
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()])
  }
  let body = bytes.subarray(end + 4)
  if (/chunked/i.test(headers.get('transfer-encoding')?.[0] ?? '')) {
    const parts: Buffer[] = []
    let at = 0
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at)
      const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16)
      if (lineEnd === -1 || !(size > 0)) break
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size))
      at = lineEnd + 2 + size + 2
    }
    body = Buffer.concat(parts)
  } else if (headers.has('content-length')) {
    body = body.subarray(0, Number(headers.get('content-length')![0]))
  }
  return { status, headers, body: body.toString('utf8') }
}

/** One request on its own connection; the answer once the server closes it. */
export function exchange(port: number, bytes: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let settled = false
    const finish = (error?: Error) => {
      if (settled) return
      settled = true
      socket.destroy()
      const answer = parseAnswer(Buffer.concat(chunks))
      if (answer) resolve(answer)
      else reject(error ?? new Error(`no HTTP answer (${Buffer.concat(chunks).length} bytes) to ${JSON.stringify(bytes.subarray(0, 80).toString('latin1'))}`))
    }
    socket.setTimeout(15_000, () => finish(new Error('no answer within 15 s')))
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('end', () => finish())
    socket.on('close', () => finish())
    // A server that answers before reading the whole body (413) may reset the connection under us.
    socket.on('error', (error) => finish(error))
    // Not end(): Node's server drops a request whose client half-closes before the answer (a slow
    // password check); `Connection: close` makes the server close once it has answered.
    socket.write(bytes)
  })
}

/** A stack frame, a Node internal, a source path: what a body must never show. */
export const STACK_TRACE = /\n\s+at |\bat [\w$.<>]+ \(|node:internal|node_modules\/|\/src\/[\w/.-]+\.[jt]s\b|\.ts:\d+:\d+/

/** The public service's JSON error: what Node's parser refusals and unrouted paths answer. */
export function jsonErrorMistakes(answer: Answer): string[] {
  if (!header(answer, 'content-type').startsWith('application/json; charset=utf-8')) return [`content-type ${header(answer, 'content-type')}`]
  try {
    const doc = JSON.parse(answer.body) as { errors?: Array<{ code?: unknown; message?: unknown }> }
    const [entry] = doc.errors ?? []
    return doc.errors?.length === 1 && typeof entry?.code === 'number' && typeof entry.message === 'string' ? [] : ['errors body']
  } catch {
    return ['body is not JSON']
  }
}

