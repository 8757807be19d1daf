import type { ServiceEnv } from '../config/env'
import { logger } from '../log'
import { startCodeHostStandIn } from '@starter-kit/standins/code-host'
import { DEFAULT_ROLES, startDiscordStandIn } from '@starter-kit/standins/discord'
import { startOAuthStandIn } from '@starter-kit/standins/oauth'
import { DEFAULT_PRICES, startProcessorStandIn } from '@starter-kit/standins/processor'

const DEV_SECRET_KEY = 'sk_test_standin_development'
const DEV_WEBHOOK_SECRET = 'whsec_standin_development'
const DEV_PUBLISHABLE_KEY = 'pk_test_standin_development'

/** The stand-in's lines, named after it, in the process's log. */
const logTo = (name: string) => {
  const log = logger.child({ name })
  return (line: string) => log.info(line)
}

const priceId = (suffix: string) => DEFAULT_PRICES.find((price) => price.id.endsWith(suffix))?.id ?? ''

/**
 * Development without processor keys: start the processor stand-in and point this process at it,
 * with its prices as the plans' defaults. Never in production (the start-up checks refuse that).
 */
const startDevelopmentProcessor = async (env: ServiceEnv) => {
  if (env.isProduction) throw new Error('the processor stand-in is for development only')
  const standIn = await startProcessorStandIn({
    port: env.standInPorts.processor,
    secretKey: DEV_SECRET_KEY,
    webhookSecret: DEV_WEBHOOK_SECRET,
    webhookUrl: `http://127.0.0.1:${env.port}/api/webhooks/processor`,
    // As Stripe does: a delivery the server did not take (restarting, compiling) comes again.
    retryDelaysMs: [5_000, 30_000, 120_000, 600_000],
    log: logTo('processor stand-in'),
  })
  Object.assign(process.env, {
    PAYMENT_SECRET_KEY: DEV_SECRET_KEY,
    PAYMENT_WEBHOOK_SECRET: DEV_WEBHOOK_SECRET,
    PUBLIC_PAYMENT_PUBLISHABLE_KEY: DEV_PUBLISHABLE_KEY,
    PAYMENT_API_URL: standIn.url,
    PAYMENT_STANDIN_URL: standIn.url,
  })
  process.env.PUBLIC_PRICE_ID_STANDARD_LIFETIME ??= priceId('standard_lifetime')
  process.env.PUBLIC_PRICE_ID_ULTIMATE_LIFETIME ??= priceId('ultimate_lifetime')
  process.env.PUBLIC_PRICE_ID_STANDARD_RENEWAL ??= priceId('standard_renewal')
  process.env.PUBLIC_PRICE_ID_PRO_MONTHLY ??= priceId('pro_monthly')
  process.env.PUBLIC_PRICE_ID_PRO_YEARLY ??= priceId('pro_yearly')
  return standIn
}

const DEV_REPO = { token: 'ghp_standin_development', owner: 'kit-org', name: 'starter-kit' }

/**
 * Development without REPO_ACCESS_TOKEN: start the code-host stand-in (every well-formed username
 * exists there; its page at / accepts invitations) and point this process at it.
 */
const startDevelopmentCodeHost = async (env: ServiceEnv) => {
  if (env.isProduction) throw new Error('the code-host stand-in is for development only')
  const standIn = await startCodeHostStandIn({
    port: env.standInPorts.codeHost,
    token: DEV_REPO.token,
    owner: DEV_REPO.owner,
    repo: DEV_REPO.name,
    everyLoginExists: true,
    log: logTo('code host stand-in'),
  })
  Object.assign(process.env, {
    REPO_ACCESS_TOKEN: DEV_REPO.token,
    REPO_OWNER: DEV_REPO.owner,
    REPO_NAME: DEV_REPO.name,
    REPO_API_URL: standIn.url,
  })
  return standIn
}

/**
 * Development without OAuth client credentials: the GitHub and Google sign-in buttons go to the OAuth
 * stand-in, whose consent page signs in as a made-up account.
 */
const startDevelopmentOAuth = async (env: ServiceEnv) => {
  if (env.isProduction) throw new Error('the OAuth stand-in is for development only')
  const redirectUris = [`${env.serverUrl}/auth/callback`]
  const standIn = await startOAuthStandIn({
    port: env.standInPorts.oauth,
    github: { clientId: 'dev-github-client', clientSecret: 'dev-github-secret', redirectUris },
    google: { clientId: 'dev-google-client', clientSecret: 'dev-google-secret', redirectUris },
    log: logTo('oauth stand-in'),
  })
  const { github, google } = standIn.endpoints
  Object.assign(process.env, {
    OAUTH_GITHUB_CLIENT_ID: 'dev-github-client',
    OAUTH_GITHUB_CLIENT_SECRET: 'dev-github-secret',
    OAUTH_GITHUB_AUTHORIZE_URL: github.authorize,
    OAUTH_GITHUB_TOKEN_URL: github.token,
    OAUTH_GITHUB_API_URL: github.userApi.replace(/\/user$/, ''),
    OAUTH_GOOGLE_CLIENT_ID: 'dev-google-client',
    OAUTH_GOOGLE_CLIENT_SECRET: 'dev-google-secret',
    OAUTH_GOOGLE_AUTHORIZE_URL: google.authorize,
    OAUTH_GOOGLE_TOKEN_URL: google.token,
    OAUTH_GOOGLE_ISSUER: google.issuer,
    OAUTH_GOOGLE_JWKS_URL: google.jwks,
  })
  return standIn
}

const DEV_DISCORD = {
  botToken: 'standin-development-bot-token',
  clientId: '1300000000000000001',
  clientSecret: 'standin-development-client-secret',
}

/**
 * Development without DISCORD_BOT_TOKEN: the Discord stand-in (its consent page signs in as a made-up
 * Discord user) with its two roles a plan can give; the log line names their IDs for the plans' Discord role field.
 */
const startDevelopmentDiscord = async (env: ServiceEnv) => {
  if (env.isProduction) throw new Error('the Discord stand-in is for development only')
  const standIn = await startDiscordStandIn({
    port: env.standInPorts.discord,
    botToken: DEV_DISCORD.botToken,
    clientId: DEV_DISCORD.clientId,
    clientSecret: DEV_DISCORD.clientSecret,
    redirectUris: [`${env.serverUrl}/api/community/discord/callback`],
    log: logTo('discord stand-in'),
  })
  Object.assign(process.env, {
    DISCORD_BOT_TOKEN: DEV_DISCORD.botToken,
    DISCORD_GUILD_ID: standIn.guildId,
    DISCORD_CLIENT_ID: DEV_DISCORD.clientId,
    DISCORD_CLIENT_SECRET: DEV_DISCORD.clientSecret,
    DISCORD_API_URL: standIn.apiUrl,
    DISCORD_AUTHORIZE_URL: standIn.authorizeUrl,
  })
  return standIn
}

/**
 * The stand-ins `npm run dev` starts for what the environment leaves unconfigured (processor keys,
 * OAuth clients, repository token), each announced with `log`; the closers stop them. server.ts
 * imports this module only outside production, so the production bundle does not contain it.
 */
export const startDevelopmentStandIns = async (
  env: ServiceEnv,
  log: (line: string) => void,
): Promise<{ name: string; close: () => Promise<unknown> }[]> => {
  const closers: { name: string; close: () => Promise<unknown> }[] = []
  if (!env.payment.secretKey) {
    const standIn = await startDevelopmentProcessor(env)
    closers.push({ name: 'processor stand-in', close: () => standIn.close() })
    log(`no PAYMENT_SECRET_KEY: checkout runs on the local processor stand-in at ${standIn.url} (no real payments)`)
  }
  if (!env.oauth.github.clientId && !env.oauth.google.clientId) {
    const standIn = await startDevelopmentOAuth(env)
    closers.push({ name: 'oauth stand-in', close: () => standIn.close() })
    log(`no OAuth client credentials: GitHub and Google sign-in use the local OAuth stand-in at ${standIn.url}`)
  }
  if (!env.repo.token) {
    const standIn = await startDevelopmentCodeHost(env)
    closers.push({ name: 'code host stand-in', close: () => standIn.close() })
    log(
      `no REPO_ACCESS_TOKEN: repository invitations go to the local code-host stand-in at ${standIn.url} (accept them there)`,
    )
  }
  if (!env.discord.botToken) {
    const standIn = await startDevelopmentDiscord(env)
    closers.push({ name: 'discord stand-in', close: () => standIn.close() })
    log(
      `no DISCORD_BOT_TOKEN: the community runs on the local Discord stand-in at ${standIn.url}; give a plan the role ${DEFAULT_ROLES.map((role) => `${role.name} (${role.id})`).join(' or ')} in the admin`,
    )
  }
  return closers
}
