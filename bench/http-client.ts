import net from 'node:net'

/**
 * One keep-alive HTTP/1.1 connection with one request in flight, over a raw socket: the load
 * generator's client. node:http's client costs more CPU per request than a bare node:http server,
 * so on one core it would measure itself instead of the server; this one does far less (it writes
 * prepared request text and reads status, Content-Length or chunked bodies).
 */
export interface Answer {
  status: number
  headers: string
  body: string
}

type Done = (error: Error | undefined, answer?: Answer) => void

export class Connection {
  private socket: net.Socket | undefined
  private buffer: Buffer = Buffer.alloc(0)
  private done: Done | undefined

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Sends the raw request text; `done` gets the answer or the connection's error. */
  send(raw: string, done: Done): void {
    if (this.done) throw new Error('one request at a time per connection')
    this.done = done
    this.open().write(raw)
  }

  request(raw: string): Promise<Answer> {
    return new Promise((resolve, reject) => this.send(raw, (error, answer) => (error ? reject(error) : resolve(answer!))))
  }

  close(): void {
    this.socket?.destroy()
    this.socket = undefined
  }

  private open(): net.Socket {
    if (this.socket) return this.socket
    const socket = net.connect(this.port, this.host)
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk])
      this.parse()
    })
    // Events of a socket we already let go (close(), connection: close) concern nobody.
    const fail = (error: Error) => {
      if (this.socket !== socket) return
      this.socket = undefined
      this.buffer = Buffer.alloc(0)
      const done = this.done
      this.done = undefined
      done?.(error)
    }
    socket.on('error', fail)
    socket.on('close', () => fail(new Error('the server closed the connection')))
    this.socket = socket
    return socket
  }

  private parse(): void {
    const buffer = this.buffer
    const headEnd = buffer.indexOf('\r\n\r\n')
    if (headEnd === -1) return
    const head = buffer.toString('latin1', 0, headEnd)
    const start = headEnd + 4
    let end: number
    let body: string
    const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head)
    if (length) {
      end = start + Number(length[1])
      if (buffer.length < end) return
      body = buffer.toString('utf8', start, end)
    } else if (/\r\ntransfer-encoding:[ \t]*chunked/i.test(head)) {
      const chunked = readChunked(buffer, start)
      if (!chunked) return
      ;({ end, body } = chunked)
    } else {
      end = start
      body = ''
    }
    this.buffer = buffer.subarray(end)
    const done = this.done
    this.done = undefined
    if (/\r\nconnection:[ \t]*close/i.test(head)) this.close()
    done?.(undefined, { status: Number(head.slice(9, 12)), headers: head, body })
  }
}

/** A complete chunked body from `start`, or undefined while more bytes are needed (no trailers). */
function readChunked(buffer: Buffer, start: number): { end: number; body: string } | undefined {
  const parts: Buffer[] = []
  let at = start
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at)
    if (lineEnd === -1) return undefined
    const size = parseInt(buffer.toString('latin1', at, lineEnd), 16)
    if (size === 0) return buffer.length < lineEnd + 4 ? undefined : { end: lineEnd + 4, body: Buffer.concat(parts).toString('utf8') }
    if (buffer.length < lineEnd + 2 + size + 2) return undefined
    parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
}

/** Raw HTTP/1.1 request text. */
export function rawRequest(method: string, path: string, headers: Record<string, string>, body = ''): string {
  let text = `${method} ${path} HTTP/1.1\r\n`
  for (const [name, value] of Object.entries(headers)) text += `${name}: ${value}\r\n`
  if (body !== '' || method === 'POST') text += `content-length: ${Buffer.byteLength(body)}\r\n`
  return `${text}\r\n${body}`
}
