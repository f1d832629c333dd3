import { stderr } from 'node:process'

/**
 * A progress bar on stderr, redrawn in place, when stderr is a terminal; nothing otherwise (logs
 * and scripts get the one result line). `update` takes how much of `total` is done.
 */
export function progressBar(label: string): { update(done: number, total: number): void; end(): void } {
  const width = 30
  let drawn = false
  return {
    update(done, total) {
      if (!stderr.isTTY) return
      const share = total === 0 ? 1 : Math.min(1, done / total)
      const filled = Math.round(share * width)
      stderr.write(`\r${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${Math.floor(share * 100)}% (${done}/${total})`)
      drawn = true
    },
    end() {
      if (drawn) stderr.write('\n')
      drawn = false
    },
  }
}
