import { connect } from 'node:net'

/** Sends raw bytes and reads the whole answer until the server closes or answers. */
export function raw(url: string, bytes: string, options: { waitForClose?: boolean } = {}): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let answer = ''
    socket.on('data', (chunk) => {
      answer += String(chunk)
      if (!options.waitForClose && /\r\n\r\n[\s\S]*\}$/.test(answer)) socket.end()
    })
    socket.on('close', () => resolve(answer))
    socket.on('error', reject)
    socket.write(bytes)
  })
}

/** The JSON body of a raw answer. */
export const jsonOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))

/** A raw request's answer: its status line's code, its content type and its body. */
export interface RawAnswer {
  status: number
  contentType: string
  body: string
}

/**
 * Bytes on a fresh connection; the answer once the server closes it. `halfClose` ends our side once
 * the bytes are sent (a client with nothing more to say); without it the bytes must ask the server
 * to close (`Connection: close`, or a request it refuses).
 */
export function sendRaw(url: string, bytes: string, options: { halfClose?: boolean } = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let text = ''
    socket.on('data', (chunk) => (text += String(chunk)))
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n')
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0), contentType: /content-type: ([^\r]+)/i.exec(head)?.[1] ?? '', body })
    })
    socket.on('error', reject)
    if (options.halfClose) socket.end(bytes)
    else socket.write(bytes)
  })
}
