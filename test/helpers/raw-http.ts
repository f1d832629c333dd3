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
