import { s3Storage as s3StoragePlugin } from '@payloadcms/storage-s3'
import type { Config, Plugin } from 'payload'

import { Downloads } from '../collections/Downloads'
import { createReleasesCollection } from '../collections/Releases'
import { RepoAccess } from '../collections/RepoAccess'
import { RepoUsernames } from '../collections/RepoUsernames'
import { createTemplatesCollection, withStaffOnlyArchive } from '../collections/Templates'
import { withPublicMediaUpkeep } from '../src/content/public-media'
import { TemplateDownloads } from '../collections/TemplateDownloads'
import { downloadEndpoint, downloadFileEndpoint } from '../endpoints/download'
import { templateDownloadEndpoint, templateFileEndpoint } from '../endpoints/templates'
import { repoAccessGetEndpoint, repoAccessPostEndpoint } from '../endpoints/repo-access'
import { type CodeHost, type CodeHostOptions, createCodeHost } from '../src/delivery/code-host'
import { queueRepoAccessWithdrawal, withdrawRepoAccessTask } from '../src/delivery/jobs'
import { ServiceError } from '../src/http/errors'
import { localStorage, S3_PREFIX, s3ClientConfig, type S3Settings, s3Storage } from '../src/delivery/storage'
import { localTemplateStorage, TEMPLATES_S3_PREFIX } from '../src/delivery/templates'
import { addCollectionHooks } from './extend'
import { withRuntime } from '../src/config/runtime'

export type DeliveryOptions = {
  serverUrl: string
  /** Signs local download links (derived from PAYLOAD_SECRET). */
  secret: string
  releasesDir: string
  /** Template archives on local disk when S3 is not configured (like releases, never public). */
  templatesDir: string
  downloadUrlTtlSeconds: number
  s3: S3Settings | null
  /** The kit's repository on the code host; null when not configured (repo access answers 503). */
  codeHost: CodeHostOptions | null
  retryDelayMs: number
}

/**
 * Delivery: releases and the template library (archives on S3 when configured, otherwise on local
 * disk outside any public folder), licensed downloads through short-lived signed links, the download
 * histories, and repository access requests. The S3 fields are always in the schema, so turning S3
 * on needs no migration.
 */
export const deliveryPlugin =
  (options: DeliveryOptions): Plugin =>
  async (incoming: Config): Promise<Config> => {
    let client: CodeHost | null = null
    const codeHost = () => {
      if (!options.codeHost)
        throw new ServiceError(503, 'code_host_not_configured', 'Repository access is not configured on this server.')
      client ??= createCodeHost(options.codeHost)
      return client
    }
    const storage = options.s3
      ? s3Storage(options.s3)
      : localStorage({ serverUrl: options.serverUrl, secret: options.secret })
    const downloads = { storage, ttlSeconds: options.downloadUrlTtlSeconds }
    // On S3 a template's link is presigned like a release's (each record names its own prefix).
    const templateStorage = options.s3
      ? storage
      : localTemplateStorage({ serverUrl: options.serverUrl, secret: options.secret })
    const templateDownloads = { storage: templateStorage, ttlSeconds: options.downloadUrlTtlSeconds }
    const config: Config = {
      ...incoming,
      // Server-only: the dashboard's server actions use the same settings as the endpoints.
      custom: withRuntime(incoming, 'delivery', { downloads, templateDownloads, codeHost }),
      collections: [
        ...addCollectionHooks(incoming, {
          plugin: 'deliveryPlugin',
          slug: 'licenses',
          hooks: { afterChange: [queueRepoAccessWithdrawal] },
        }),
        createReleasesCollection({ staticDir: options.releasesDir }),
        Downloads,
        RepoAccess,
        RepoUsernames,
        // A published template's preview is a public image (src/content/public-media.ts).
        withPublicMediaUpkeep(
          createTemplatesCollection({
            staticDir: options.templatesDir,
            endpoints: [
              templateDownloadEndpoint(templateDownloads),
              templateFileEndpoint({ secret: options.secret, staticDir: options.templatesDir }),
            ],
          }),
        ),
        TemplateDownloads,
      ],
      endpoints: [
        ...(incoming.endpoints ?? []),
        downloadEndpoint(downloads),
        downloadFileEndpoint({ secret: options.secret, staticDir: options.releasesDir }),
        repoAccessPostEndpoint(codeHost),
        repoAccessGetEndpoint(codeHost),
      ],
      jobs: {
        ...incoming.jobs,
        tasks: [...(incoming.jobs?.tasks ?? []), withdrawRepoAccessTask(codeHost, options.retryDelayMs)],
      },
    }
    const stored = await s3StoragePlugin({
      enabled: Boolean(options.s3),
      alwaysInsertFields: true,
      bucket: options.s3?.bucket ?? 'unused',
      collections: { releases: { prefix: S3_PREFIX }, templates: { prefix: TEMPLATES_S3_PREFIX } },
      config: s3ClientConfig(options.s3),
    })(config)
    // After the storage plugin, whose S3 fields name the template archive too.
    return {
      ...stored,
      collections: stored.collections?.map((collection) =>
        collection.slug === 'templates' ? withStaffOnlyArchive(collection) : collection,
      ),
    }
  }
