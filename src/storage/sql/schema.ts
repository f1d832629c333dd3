/** The tables as Kysely sees them (snake_case, as stored). Booleans are 0/1 integers on every backend. */

export interface UsersTable {
  id: string
  screen_name: string
  screen_name_lower: string
  name: string
  password_hash: string
  created_at_ms: number
}

export interface AppsTable {
  id: string
  name: string
  description: string
  website: string
  owner_id: string
  consumer_key: string
  consumer_secret: string
  /** JSON array of strings. */
  callback_urls: string
  access_level: string
  app_type: string
  sign_in_enabled: number
  /** Comma-separated method names. */
  signature_methods: string
  is_suspended: number
  is_resource_server: number
  created_at_ms: number
  updated_at_ms: number
}

export interface RequestTokensTable {
  token: string
  secret: string
  app_id: string
  callback: string
  access_level: string
  status: string
  user_id: string | null
  verifier: string | null
  verifier_failures: number
  created_at_ms: number
  expires_at_ms: number
}

export interface AccessTokensTable {
  token: string
  secret: string
  app_id: string
  user_id: string
  access_level: string
  created_at_ms: number
  revoked_at_ms: number | null
}

export interface BearerTokensTable {
  token: string
  app_id: string
  created_at_ms: number
  revoked_at_ms: number | null
}

export interface Database {
  users: UsersTable
  apps: AppsTable
  request_tokens: RequestTokensTable
  access_tokens: AccessTokensTable
  bearer_tokens: BearerTokensTable
}
