import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'

/**
 * A benchmark means nothing unless nothing else runs: no test run, no build, no other process
 * busy. Below this one-minute load average the machine counts as quiet.
 */
export const QUIET_LOAD = 0.5

/** The machine's CPU time so far, in clock ticks: all of it, and the part a hypervisor stole. */
export interface CpuTimes {
  total: number
  steal: number
}

/** The `cpu` line of /proc/stat (Linux); undefined elsewhere. */
export function cpuTimes(): CpuTimes | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal (guest time is counted in user already)
    return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 }
  } catch {
    return undefined
  }
}

/** The share of the machine's CPU time stolen between two readings, in percent. */
export function stealPercent(from: CpuTimes | undefined, to: CpuTimes | undefined): number | undefined {
  if (!from || !to || to.total <= from.total) return undefined
  return (100 * (to.steal - from.steal)) / (to.total - from.total)
}

/** Why the machine is not quiet enough to measure on, or undefined when it is. */
export function notQuiet(load = loadavg()[0]!): string | undefined {
  if (load < QUIET_LOAD) return undefined
  return `the load average is ${load.toFixed(2)} (a benchmark needs it below ${QUIET_LOAD}): stop what else runs (tests, builds, other servers) and wait a minute`
}
