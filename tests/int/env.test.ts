/**
 * The configuration (src/config/env.ts): every variable declared once in the zod schema, read with
 * the development defaults, malformed values refused naming the variable, production's refusals, and
 * no service code reading a variable the schema does not declare.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { ENV_SCHEMA, envVariables, productionProblems, readEnv } from '../../src/config/env'
import { COMPLETE_PRODUCTION_ENV as COMPLETE } from '../support/production-env'

const root = path.resolve(import.meta.dirname, '../..')
const names = Object.keys(ENV_SCHEMA.shape)

/** The parsed configuration without the BlockList, which equality cannot look into. */
const comparable = (source: Record<string, string | undefined>) => {
  const { trustedProxies: _trustedProxies, ...rest } = readEnv(source)
  return rest
}

describe('reading the environment', () => {
  it('unset, every setting has its development default', () => {
    const env = readEnv({})
    expect(env).toMatchObject({
      isProduction: false,
      dataDir: path.resolve('.data'),
      databaseUrl: undefined,
      databasePoolMax: 10,
      payloadSecret: undefined,
      serverUrl: 'http://localhost:3000',
      port: 3000,
      smtpUrl: undefined,
      emailFrom: 'no-reply@localhost',
      emailFromName: 'Starter Kit',
      embeddedPostgresPort: 54329,
      maxBodyBytes: 1024 * 1024,
      maxUploadBytes: 512 * 1024 * 1024,
      payment: {
        secretKey: undefined,
        webhookSecret: undefined,
        publishableKey: undefined,
        apiUrl: undefined,
        timeoutMs: 10_000,
      },
      subscriptionGraceDays: 7,
      licenseSigningKey: undefined,
      jobsRetryDelayMs: 30_000,
      jobsWorker: true,
      releasesDir: path.resolve('.data/releases'),
      templatesDir: path.resolve('.data/templates'),
      mediaDir: path.resolve('media'),
      contentDir: path.resolve('src/content'),
      contentImportOnStart: true,
      downloadUrlTtlSeconds: 300,
      s3: {
        bucket: undefined,
        region: 'us-east-1',
        endpoint: undefined,
        accessKeyId: undefined,
        secretAccessKey: undefined,
      },
      oauth: {
        github: {
          authorizeUrl: 'https://github.com/login/oauth/authorize',
          tokenUrl: 'https://github.com/login/oauth/access_token',
          apiUrl: 'https://api.github.com',
        },
        google: {
          authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
          tokenUrl: 'https://oauth2.googleapis.com/token',
          issuer: 'https://accounts.google.com',
          jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
        },
      },
      repo: { token: undefined, owner: undefined, name: undefined, apiUrl: undefined, timeoutMs: 10_000 },
      priceIds: { standardLifetime: null, ultimateLifetime: null, proMonthly: null, proYearly: null },
      standInPorts: { processor: 12111, codeHost: 12112, oauth: 12113 },
    })
    expect(env.trustedProxies.rules).toEqual([])
  })

  it('a blank variable is an unset one, and values are trimmed', () => {
    expect(comparable(Object.fromEntries(names.map((name) => [name, '  '])))).toEqual(comparable({}))
    const env = readEnv({
      PORT: ' 4000 ',
      DATA_DIR: ' /srv/kit ',
      SMTP_URL: ' smtp://127.0.0.1:2525 ',
      JOBS_WORKER: ' FALSE ',
      LOG_LEVEL: ' WARN ',
    })
    expect(env).toMatchObject({
      port: 4000,
      serverUrl: 'http://localhost:4000',
      dataDir: '/srv/kit',
      releasesDir: '/srv/kit/releases',
      smtpUrl: 'smtp://127.0.0.1:2525',
      jobsWorker: false,
    })
  })

  it('takes what is set: SERVER_URL without its trailing slashes, folders against the project, the proxies', () => {
    const env = readEnv({
      NODE_ENV: 'production',
      SERVER_URL: 'https://kit.example.com//',
      RELEASES_DIR: 'archives',
      CONTENT_IMPORT_ON_START: 'False',
      DOWNLOAD_URL_TTL_SECONDS: '3600',
      PUBLIC_PRICE_ID_PRO_YEARLY: 'price_yearly',
      OAUTH_STANDIN_PORT: '4113',
      TRUSTED_PROXIES: '10.0.0.0/8',
    })
    expect(env).toMatchObject({
      isProduction: true,
      serverUrl: 'https://kit.example.com',
      releasesDir: path.resolve('archives'),
      contentImportOnStart: false,
      downloadUrlTtlSeconds: 3600,
      priceIds: { proYearly: 'price_yearly', proMonthly: null },
      standInPorts: { oauth: 4113 },
    })
    expect(env.trustedProxies.check('10.1.2.3', 'ipv4')).toBe(true)
    expect(env.trustedProxies.check('192.0.2.1', 'ipv4')).toBe(false)
  })

  it('PORT=abc stops it with a message naming the variable and the value', () => {
    expect(() => readEnv({ PORT: 'abc' })).toThrow(new Error('PORT must be a port number from 1 to 65535, got "abc"'))
    for (const value of ['0', '65536', '80.5', '-1'])
      expect(() => readEnv({ PORT: value })).toThrow(`PORT must be a port number from 1 to 65535, got "${value}"`)
  })

  it('names every malformed variable in one message, each once', () => {
    const read = () =>
      readEnv({
        MAX_BODY_BYTES: '1 MiB',
        SERVER_URL: 'kit.example.com',
        LOG_LEVEL: 'verbose',
        CONTENT_IMPORT_ON_START: 'no',
        DOWNLOAD_URL_TTL_SECONDS: '7200',
        REPO_API_URL: 'ftp://example.com',
        TRUSTED_PROXIES: '10.0.0.0/8, the-load-balancer',
      })
    expect(read).toThrow(
      new Error(
        [
          'SERVER_URL must be an absolute http:// or https:// URL, got "kit.example.com"',
          'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "verbose"',
          'MAX_BODY_BYTES must be a positive integer, got "1 MiB"',
          'TRUSTED_PROXIES: "the-load-balancer" is not an IP address or CIDR (such as 10.0.0.0/8 or 2001:db8::/32)',
          'DOWNLOAD_URL_TTL_SECONDS must be a whole number of seconds from 1 to 3600, got "7200"',
          'CONTENT_IMPORT_ON_START must be true or false, got "no"',
          'REPO_API_URL must be an absolute http:// or https:// URL, got "ftp://example.com"',
        ].join('; '),
      ),
    )
  })

  it('never quotes the value of a secret it refuses', () => {
    expect(envVariables().find((variable) => variable.name === 'DATABASE_URL')?.secret).toBe(true)
    expect(() => readEnv({ DATABASE_URL: 'mysql://kit:hunter2-password@db.example.com/kit' })).toThrow(
      new Error('DATABASE_URL must be a postgres:// or postgresql:// URL'),
    )
    expect(readEnv({ DATABASE_URL: 'postgresql://kit:pw@db.example.com:5432/kit?sslmode=require' }).databaseUrl).toBe(
      'postgresql://kit:pw@db.example.com:5432/kit?sslmode=require',
    )
  })
})

describe('production refusals', () => {
  it('are the variables the schema marks required in production, and nothing else is missing from a complete set', () => {
    expect(
      envVariables()
        .filter((variable) => variable.production && !variable.production.when)
        .map((variable) => variable.name)
        .sort(),
    ).toEqual(Object.keys(COMPLETE).sort())
    // Required only together (the Discord community): all or none.
    expect(
      envVariables()
        .filter((variable) => variable.production?.when)
        .map((variable) => variable.name),
    ).toEqual(['DISCORD_BOT_TOKEN', 'DISCORD_GUILD_ID', 'DISCORD_CLIENT_ID', 'DISCORD_CLIENT_SECRET'])
    expect(productionProblems(COMPLETE)).toEqual([])
  })

  it.each(Object.keys(COMPLETE))('without %s (or with it blank): one problem, naming it', (name) => {
    for (const value of [undefined, '   ']) {
      const problems = productionProblems({ ...COMPLETE, [name]: value })
      expect(problems).toHaveLength(1)
      expect(problems[0]).toMatch(new RegExp(`^${name} is not set \\(.+\\)$`))
    }
  })

  it("refuse a set value that breaks the variable's rule, without quoting a secret", () => {
    const rsa = crypto
      .generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
    expect(productionProblems({ ...COMPLETE, PAYLOAD_SECRET: 'short-secret-value' })).toEqual([
      'PAYLOAD_SECRET is too short (18 characters, need at least 32)',
    ])
    expect(productionProblems({ ...COMPLETE, PAYMENT_SECRET_KEY: 'pk_live_0123456789abcdef' })).toEqual([
      'PAYMENT_SECRET_KEY is not a secret key (sk_test_/sk_live_/rk_...)',
    ])
    expect(productionProblems({ ...COMPLETE, PUBLIC_PAYMENT_PUBLISHABLE_KEY: 'sk_live_0123456789abcdef' })).toEqual([
      'PUBLIC_PAYMENT_PUBLISHABLE_KEY is not a publishable key (pk_...)',
    ])
    expect(productionProblems({ ...COMPLETE, PUBLIC_PAYMENT_PUBLISHABLE_KEY: 'pk_test_0123456789abcdef' })).toEqual([
      'PAYMENT_SECRET_KEY and PUBLIC_PAYMENT_PUBLISHABLE_KEY are of different modes (test and live keys must not be mixed)',
    ])
    expect(productionProblems({ ...COMPLETE, LICENSE_SIGNING_KEY: rsa })).toEqual([
      'LICENSE_SIGNING_KEY is not an Ed25519 private key (PKCS#8 PEM or private JWK)',
    ])
    // Test-mode keys are allowed (staging), restricted keys too.
    expect(
      productionProblems({
        ...COMPLETE,
        PAYMENT_SECRET_KEY: 'rk_test_0123',
        PUBLIC_PAYMENT_PUBLISHABLE_KEY: 'pk_test_0123',
      }),
    ).toEqual([])
  })
})

/** Set by the commands or read by a library's convention, not the operator's settings. */
const NOT_IN_THE_SCHEMA = new Set([
  'NODE_ENV',
  'NEXT_RUNTIME',
  'NEXT_TELEMETRY_DISABLED',
  // Payload's own switch, which src/log.ts honours as Payload does (LOG_LEVEL=silent is the documented one).
  'DISABLE_LOGGING',
  // Set by this process when it starts the processor stand-in, for the pricing page's notice.
  'PAYMENT_STANDIN_URL',
  // Set by server.ts in development for Turbopack's cache writer (PATCH turbopack-snapshot-delay).
  'TURBO_ENGINE_SNAPSHOT_IDLE_TIMEOUT_MILLIS',
])

const sourceFiles = (entry: string): string[] => {
  const full = path.join(root, entry)
  if (!fs.statSync(full).isDirectory()) return [full]
  return fs
    .readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|tsx)$/.test(file))
    .map((file) => path.join(full, file))
}

describe('one declaration per variable', () => {
  it('the service code reads no environment variable the schema does not declare', () => {
    const read = new Map<string, string>()
    for (const file of ['src', 'plugins', 'collections', 'endpoints', 'server.ts', 'payload.config.ts'].flatMap(
      sourceFiles,
    )) {
      for (const match of fs
        .readFileSync(file, 'utf8')
        .matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g)) {
        read.set(match[1] ?? match[2]!, path.relative(root, file))
      }
    }
    expect(read.size).toBeGreaterThan(5)
    const undeclared = [...read].filter(([name]) => !names.includes(name) && !NOT_IN_THE_SCHEMA.has(name))
    expect(undeclared, 'declare these in ENV_SCHEMA (src/config/env.ts), then npm run docs:env').toEqual([])
  })
})
