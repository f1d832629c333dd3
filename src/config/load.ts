import { readFileSync } from 'node:fs'
import { SETTINGS, type Config, type SettingName } from './settings.ts'

/** A setting that cannot be used; its message is one line naming the setting. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

export interface ConfigSources {
  /** Usually process.env; only the LATCHKEY_* variables of the table are read. */
  env: Record<string, string | undefined>
  /** Values from the command line, keyed by setting name. */
  flags?: Partial<Record<SettingName, unknown>>
  /** A JSON file of settings keyed by setting name (`--config` or LATCHKEY_CONFIG). */
  file?: string
}

const NAMES = Object.keys(SETTINGS) as SettingName[]

/** Builds the one validated config: defaults < config file < environment < command-line flags. */
export function loadConfig(sources: ConfigSources): Config {
  const fromFile = readConfigFile(sources.file ?? sources.env.LATCHKEY_CONFIG)
  const raw = (name: SettingName): { value: unknown; from: string } | undefined => {
    const def = SETTINGS[name]
    const flag = sources.flags?.[name]
    if (flag !== undefined) return { value: flag, from: `${def.flag.split(' ')[0]}` }
    const env = sources.env[def.env]
    if (env !== undefined && env !== '') return { value: env, from: def.env }
    if (fromFile[name] !== undefined) return { value: fromFile[name], from: `config file key ${name}` }
    return undefined
  }
  const dev = parseOne('dev', raw('dev')) as boolean
  const test = parseOne('test', raw('test')) as boolean
  const config: Record<string, unknown> = { dev, test }
  for (const name of NAMES) {
    if (name === 'dev' || name === 'test') continue
    const def = SETTINGS[name]
    const given = raw(name)
    const fallback = test && 'testDefault' in def ? def.testDefault : dev && 'devDefault' in def ? def.devDefault : def.default
    config[name] = parseOne(name, given ?? { value: fallback, from: 'default' })
  }
  return Object.freeze(config) as Config
}

function parseOne(name: SettingName, given: { value: unknown; from: string } | undefined): unknown {
  const def = SETTINGS[name]
  const input = given ?? { value: def.default, from: 'default' }
  const result = def.schema.safeParse(input.value)
  if (result.success) return result.data
  const reason = result.error.issues[0]?.message ?? 'invalid value'
  throw new ConfigError(`invalid setting ${name} (${input.from}): ${reason}`)
}

function readConfigFile(path: string | undefined): Partial<Record<SettingName, unknown>> {
  if (!path) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${path} must hold a JSON object of settings`)
  }
  for (const key of Object.keys(parsed)) {
    if (!(key in SETTINGS)) throw new ConfigError(`config file ${path}: unknown setting ${key}`)
  }
  return parsed as Partial<Record<SettingName, unknown>>
}
