import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'

export interface ExampleProcess {
  child: ChildProcess
  /** The URL it printed in its `listening on http://…` line. */
  url: string
  /** SIGTERM, and its exit awaited (nothing when it has already exited). */
  stop(): Promise<void>
}

/** Starts one of the examples of examples/ as its own process and waits for its `listening on URL` line. */
export async function startExample(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<ExampleProcess> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  for await (const chunk of child.stdout!) {
    output += String(chunk)
    const match = /listening on (http:\/\/\S+)/.exec(output)
    if (match) return { child, url: match[1]!, stop: () => stopChild(child) }
  }
  throw new Error(`${command} ${args.join(' ')} exited before listening: ${output}`)
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  await exited
}
