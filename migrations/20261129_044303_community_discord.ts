import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_community_grants_state" AS ENUM('pending', 'granted', 'failed');
  ALTER TYPE "public"."enum_auth_tokens_purpose" ADD VALUE 'discord_state';
  ALTER TYPE "public"."enum_webhook_endpoints_events" ADD VALUE 'community.granted';
  ALTER TYPE "public"."enum_webhook_endpoints_events" ADD VALUE 'community.revoked';
  ALTER TYPE "public"."enum_payload_jobs_log_task_slug" ADD VALUE 'syncCommunityRoles' BEFORE 'eraseDueAccounts';
  ALTER TYPE "public"."enum_payload_jobs_log_task_slug" ADD VALUE 'checkCommunity' BEFORE 'eraseDueAccounts';
  ALTER TYPE "public"."enum_payload_jobs_task_slug" ADD VALUE 'syncCommunityRoles' BEFORE 'eraseDueAccounts';
  ALTER TYPE "public"."enum_payload_jobs_task_slug" ADD VALUE 'checkCommunity' BEFORE 'eraseDueAccounts';
  CREATE TABLE "discord_links" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"user_id" integer NOT NULL,
  	"discord_user_id" varchar,
  	"discord_username" varchar,
  	"linked_at" timestamp(3) with time zone,
  	"last_synced_at" timestamp(3) with time zone,
  	"sync_lease_until" timestamp(3) with time zone,
  	"sync_requests" numeric DEFAULT 0,
  	"sync_check_requested" boolean DEFAULT false,
  	"sync_queued_at" timestamp(3) with time zone,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "community_grants" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"user_id" integer NOT NULL,
  	"discord_user_id" varchar NOT NULL,
  	"role_id" varchar NOT NULL,
  	"state" "enum_community_grants_state" NOT NULL,
  	"granted_at" timestamp(3) with time zone,
  	"last_attempt_at" timestamp(3) with time zone,
  	"last_error" varchar,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  ALTER TABLE "plans" ADD COLUMN "discord_role_id" varchar;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "discord_links_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "community_grants_id" integer;
  ALTER TABLE "discord_links" ADD CONSTRAINT "discord_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "community_grants" ADD CONSTRAINT "community_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  CREATE UNIQUE INDEX "discord_links_user_idx" ON "discord_links" USING btree ("user_id");
  CREATE UNIQUE INDEX "discord_links_discord_user_id_idx" ON "discord_links" USING btree ("discord_user_id");
  CREATE INDEX "discord_links_updated_at_idx" ON "discord_links" USING btree ("updated_at");
  CREATE INDEX "discord_links_created_at_idx" ON "discord_links" USING btree ("created_at");
  CREATE INDEX "community_grants_user_idx" ON "community_grants" USING btree ("user_id");
  CREATE INDEX "community_grants_discord_user_id_idx" ON "community_grants" USING btree ("discord_user_id");
  CREATE INDEX "community_grants_updated_at_idx" ON "community_grants" USING btree ("updated_at");
  CREATE INDEX "community_grants_created_at_idx" ON "community_grants" USING btree ("created_at");
  CREATE UNIQUE INDEX "user_discordUserId_roleId_idx" ON "community_grants" USING btree ("user_id","discord_user_id","role_id");
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_discord_links_fk" FOREIGN KEY ("discord_links_id") REFERENCES "public"."discord_links"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_community_grants_fk" FOREIGN KEY ("community_grants_id") REFERENCES "public"."community_grants"("id") ON DELETE cascade ON UPDATE no action;
  CREATE INDEX "payload_locked_documents_rels_discord_links_id_idx" ON "payload_locked_documents_rels" USING btree ("discord_links_id");
  CREATE INDEX "payload_locked_documents_rels_community_grants_id_idx" ON "payload_locked_documents_rels" USING btree ("community_grants_id");`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "discord_links" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "community_grants" DISABLE ROW LEVEL SECURITY;
  DROP TABLE "discord_links" CASCADE;
  DROP TABLE "community_grants" CASCADE;
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_discord_links_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_community_grants_fk";
  
  ALTER TABLE "auth_tokens" ALTER COLUMN "purpose" SET DATA TYPE text;
  DROP TYPE "public"."enum_auth_tokens_purpose";
  CREATE TYPE "public"."enum_auth_tokens_purpose" AS ENUM('magic_link', 'verify_email', 'email_change', 'deletion_cancel');
  ALTER TABLE "auth_tokens" ALTER COLUMN "purpose" SET DATA TYPE "public"."enum_auth_tokens_purpose" USING "purpose"::"public"."enum_auth_tokens_purpose";
  ALTER TABLE "webhook_endpoints_events" ALTER COLUMN "value" SET DATA TYPE text;
  DROP TYPE "public"."enum_webhook_endpoints_events";
  CREATE TYPE "public"."enum_webhook_endpoints_events" AS ENUM('order.paid', 'order.refunded', 'license.created', 'license.updated', 'license.revoked', 'subscription.created', 'subscription.updated', 'subscription.canceled', 'seat.claimed', 'seat.revoked', 'activation.created', 'activation.deleted', 'customer.deleted');
  ALTER TABLE "webhook_endpoints_events" ALTER COLUMN "value" SET DATA TYPE "public"."enum_webhook_endpoints_events" USING "value"::"public"."enum_webhook_endpoints_events";
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_log_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_log_task_slug" AS ENUM('inline', 'sendEmail', 'pruneRateLimits', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'refundLicenseChange', 'sendLicenseChangeEmail', 'sendSupportReply', 'eraseDueAccounts', 'deliverWebhook', 'deleteOldWebhookEvents', 'reapStuckJobs');
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_log_task_slug" USING "task_slug"::"public"."enum_payload_jobs_log_task_slug";
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_task_slug" AS ENUM('inline', 'sendEmail', 'pruneRateLimits', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'refundLicenseChange', 'sendLicenseChangeEmail', 'sendSupportReply', 'eraseDueAccounts', 'deliverWebhook', 'deleteOldWebhookEvents', 'reapStuckJobs');
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_task_slug" USING "task_slug"::"public"."enum_payload_jobs_task_slug";
  DROP INDEX "payload_locked_documents_rels_discord_links_id_idx";
  DROP INDEX "payload_locked_documents_rels_community_grants_id_idx";
  ALTER TABLE "plans" DROP COLUMN "discord_role_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "discord_links_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "community_grants_id";
  DROP TYPE "public"."enum_community_grants_state";`)
}
