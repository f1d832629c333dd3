import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

/**
 * A PostgreSQL and a Redis of the test's own, on spare loopback ports, that the test may stop and
 * start at will. The machine's shared services are never touched.
 */

const run = promisify(execFile)

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export async function sparePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  server.close()
  await once(server, 'close')
  return port
}

/** The newest /usr/lib/postgresql/<version>/bin that has initdb and pg_ctl. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin')
}

export interface ThrowawayService {
  url: string
  stop(): Promise<void>
  start(): Promise<void>
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as on a hung machine. */
  pause(): void
  resume(): void
  /** Stops it for good and removes its files. */
  destroy(): Promise<void>
}

/** A file of /proc/<pid>, or undefined when the process is gone. */
function procFile(pid: number | string, name: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8')
  } catch {
    return undefined
  }
}

/**
 * The postmaster of the cluster in `data` (the first line of postmaster.pid, if that process runs
 * on `data`: a stale file's pid may belong to another process by now) and every process it started.
 */
function clusterProcesses(data: string): number[] {
  const pidFile = join(data, 'postmaster.pid')
  if (!existsSync(pidFile)) return []
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0])
  if (!Number.isSafeInteger(postmaster) || postmaster <= 1) return []
  if (!procFile(postmaster, 'cmdline')?.split('\0').includes(data)) return []
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      // /proc/<pid>/stat: "pid (name) state ppid …"; the name may hold spaces and parentheses.
      const stat = procFile(pid, 'stat')
      return stat !== undefined && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster
    })
    .map(Number)
  return [postmaster, ...children]
}

/**
 * initdb refuses to run as root, so as root the cluster belongs to the `postgres` system user
 * (Debian's packages make it) and its commands run through runuser.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayService | { skip: string }> {
  const bin = postgresBin()
  if (!bin) return { skip: 'no initdb/pg_ctl under /usr/lib/postgresql/*/bin' }
  const isRoot = process.getuid?.() === 0
  let owner: { uid: number; gid: number } | undefined
  if (isRoot) {
    try {
      const { stdout: uid } = await run('id', ['-u', 'postgres'])
      const { stdout: gid } = await run('id', ['-g', 'postgres'])
      owner = { uid: Number(uid.trim()), gid: Number(gid.trim()) }
    } catch {
      return { skip: 'running as root and there is no postgres user to run initdb as' }
    }
  }
  const asOwner = (command: string, args: string[]) =>
    isRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), args)

  const dir = mkdtempSync(join(tmpdir(), 'latchkey-pg-'))
  if (owner) chownSync(dir, owner.uid, owner.gid)
  const data = join(dir, 'data')
  const user = isRoot ? 'postgres' : userInfo().username
  try {
    await asOwner('initdb', ['-D', data, '-A', 'trust', '-U', user, '-E', 'UTF8', '--locale=C', '--no-sync'])
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    return { skip: `initdb failed: ${String((error as { stderr?: string }).stderr ?? error).trim().split('\n')[0]}` }
  }
  const port = await sparePort()
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`
  const start = async () => void (await asOwner('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', '-o', options, 'start']))
  const stop = async () => void (await asOwner('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']))
  const signal = (name: NodeJS.Signals) => {
    for (const pid of clusterProcesses(data)) {
      try {
        process.kill(pid, name)
      } catch {
        // ended since the listing
      }
    }
  }
  await start()
  return {
    url: `postgres://${user}@127.0.0.1:${port}/postgres`,
    start,
    stop,
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    async destroy() {
      signal('SIGCONT')
      await asOwner('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A redis-server child process on a spare port; `stop` ends that child (and only it). */
export async function startThrowawayRedis(): Promise<ThrowawayService | { skip: string }> {
  try {
    await run('redis-server', ['--version'])
  } catch {
    return { skip: 'no redis-server on the PATH' }
  }
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-redis-'))
  const port = await sparePort()
  let child: ChildProcess | undefined

  async function start(): Promise<void> {
    const spawned = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child = spawned
    let output = ''
    await new Promise<void>((resolve, reject) => {
      spawned.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk
        if (output.includes('Ready to accept connections')) resolve()
      })
      spawned.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)))
    })
    spawned.stdout!.resume()
  }

  async function stop(): Promise<void> {
    const current = child
    child = undefined
    if (!current || current.exitCode !== null) return
    const exited = once(current, 'exit')
    current.kill('SIGCONT')
    current.kill('SIGTERM')
    await exited
  }

  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async destroy() {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
