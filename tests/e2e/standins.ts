/**
 * The browser scenarios' stand-ins, in a process of their own as they would be in production: the
 * processor (hosted checkout and portal pages, signed webhooks to the server), the code host (its page
 * at / accepts invitations), the OAuth providers, Discord (its consent page), and an SMTP server that writes each message it
 * receives, raw, into E2E_OUTBOX. Prints one line `ready <json>` with the server's settings for them.
 */
import fs from 'node:fs'
import path from 'node:path'

import { SMTPServer } from 'smtp-server'

import { startCodeHostStandIn } from '@starter-kit/standins/code-host'
import { DEFAULT_ROLES, DEFAULT_USERS, startDiscordStandIn } from '@starter-kit/standins/discord'
import { startOAuthStandIn } from '@starter-kit/standins/oauth'
import { DEFAULT_PRICES, startProcessorStandIn } from '@starter-kit/standins/processor'

const required = (name: string): string => {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set`)
  return value
}

const serverUrl = required('E2E_SERVER_URL')
const outbox = required('E2E_OUTBOX')
const [processorPort, codeHostPort, oauthPort, smtpPort, discordPort] = required('E2E_STANDIN_PORTS')
  .split(',')
  .map(Number)

const E2E_PROCESSOR = {
  secretKey: 'sk_test_e2e_0123456789',
  publishableKey: 'pk_test_e2e_0123456789',
  webhookSecret: 'whsec_e2e_0123456789',
}
const E2E_REPO = { token: 'ghp_e2e_0123456789', owner: 'kit-org', repo: 'starter-kit' }
const E2E_DISCORD = {
  botToken: 'standin-e2e-bot-token-0123456789',
  clientId: '1500000000000000001',
  clientSecret: 'standin-e2e-client-secret',
}
const OAUTH_CLIENTS = {
  github: {
    clientId: 'e2e-github-client',
    clientSecret: 'e2e-github-secret',
    redirectUris: [`${serverUrl}/auth/callback`],
  },
  google: {
    clientId: 'e2e-google-client',
    clientSecret: 'e2e-google-secret',
    redirectUris: [`${serverUrl}/auth/callback`],
  },
}

// Every delivery is logged to standins.log (stderr; kept when a scenario fails), and one without a 2xx answer
// is retried as Stripe retries: a scenario waits for the server, not for the first attempt's luck.
const processor = await startProcessorStandIn({
  port: processorPort,
  ...E2E_PROCESSOR,
  webhookUrl: `${serverUrl}/api/webhooks/processor`,
  retryDelaysMs: [1_000, 3_000, 10_000, 30_000],
  log: (line) => console.error(`processor: ${line}`),
})
const codeHost = await startCodeHostStandIn({ port: codeHostPort, ...E2E_REPO, everyLoginExists: true })
const oauth = await startOAuthStandIn({ port: oauthPort, ...OAUTH_CLIENTS })
const discord = await startDiscordStandIn({
  port: discordPort,
  ...E2E_DISCORD,
  redirectUris: [`${serverUrl}/api/community/discord/callback`],
  log: (line) => console.error(`discord: ${line}`),
})

fs.mkdirSync(outbox, { recursive: true })
let received = 0
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    const chunks: Buffer[] = []
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('end', () => {
      received += 1
      fs.writeFileSync(
        path.join(outbox, `${Date.now()}-${String(received).padStart(5, '0')}.eml`),
        Buffer.concat(chunks),
      )
      callback()
    })
  },
})
await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve))

const price = (suffix: string) => DEFAULT_PRICES.find((candidate) => candidate.id.endsWith(suffix))?.id ?? ''
const { github, google } = oauth.endpoints
const serverEnv = {
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  PAYMENT_SECRET_KEY: E2E_PROCESSOR.secretKey,
  PAYMENT_WEBHOOK_SECRET: E2E_PROCESSOR.webhookSecret,
  PUBLIC_PAYMENT_PUBLISHABLE_KEY: E2E_PROCESSOR.publishableKey,
  PAYMENT_API_URL: processor.url,
  PUBLIC_PRICE_ID_STANDARD_LIFETIME: price('standard_lifetime'),
  PUBLIC_PRICE_ID_ULTIMATE_LIFETIME: price('ultimate_lifetime'),
  PUBLIC_PRICE_ID_STANDARD_RENEWAL: price('standard_renewal'),
  PUBLIC_PRICE_ID_PRO_MONTHLY: price('pro_monthly'),
  PUBLIC_PRICE_ID_PRO_YEARLY: price('pro_yearly'),
  REPO_ACCESS_TOKEN: E2E_REPO.token,
  REPO_OWNER: E2E_REPO.owner,
  REPO_NAME: E2E_REPO.repo,
  REPO_API_URL: codeHost.url,
  OAUTH_GITHUB_CLIENT_ID: OAUTH_CLIENTS.github.clientId,
  OAUTH_GITHUB_CLIENT_SECRET: OAUTH_CLIENTS.github.clientSecret,
  OAUTH_GITHUB_AUTHORIZE_URL: github.authorize,
  OAUTH_GITHUB_TOKEN_URL: github.token,
  OAUTH_GITHUB_API_URL: github.userApi.replace(/\/user$/, ''),
  OAUTH_GOOGLE_CLIENT_ID: OAUTH_CLIENTS.google.clientId,
  OAUTH_GOOGLE_CLIENT_SECRET: OAUTH_CLIENTS.google.clientSecret,
  OAUTH_GOOGLE_AUTHORIZE_URL: google.authorize,
  OAUTH_GOOGLE_TOKEN_URL: google.token,
  OAUTH_GOOGLE_ISSUER: google.issuer,
  OAUTH_GOOGLE_JWKS_URL: google.jwks,
  DISCORD_BOT_TOKEN: E2E_DISCORD.botToken,
  DISCORD_GUILD_ID: discord.guildId,
  DISCORD_CLIENT_ID: E2E_DISCORD.clientId,
  DISCORD_CLIENT_SECRET: E2E_DISCORD.clientSecret,
  DISCORD_API_URL: discord.apiUrl,
  DISCORD_AUTHORIZE_URL: discord.authorizeUrl,
}

// Nothing here outlives the run: the stand-ins keep their state in memory only.
process.on('SIGTERM', () => process.exit(0))
// What the scenarios need to look at Discord and refund as the processor would: its API, as the bot and the seller.
const standInsState = {
  serverEnv,
  codeHostUrl: codeHost.url,
  processor: { url: processor.url, secretKey: E2E_PROCESSOR.secretKey },
  discord: {
    apiUrl: discord.apiUrl,
    guildId: discord.guildId,
    botToken: E2E_DISCORD.botToken,
    buyer: DEFAULT_USERS[0]!,
    buyersRoleId: DEFAULT_ROLES[0]!.id!,
  },
}
console.info(`ready ${JSON.stringify(standInsState)}`)
