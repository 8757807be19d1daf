import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_users_deletion_requested_by" AS ENUM('customer', 'staff');
  ALTER TYPE "public"."enum_auth_tokens_purpose" ADD VALUE 'deletion_cancel';
  ALTER TYPE "public"."enum_webhook_endpoints_events" ADD VALUE 'customer.deleted';
  ALTER TYPE "public"."enum_payload_jobs_log_task_slug" ADD VALUE 'eraseDueAccounts' BEFORE 'deliverWebhook';
  ALTER TYPE "public"."enum_payload_jobs_task_slug" ADD VALUE 'eraseDueAccounts' BEFORE 'deliverWebhook';
  ALTER TABLE "users" ADD COLUMN "password_set" boolean DEFAULT false;
  ALTER TABLE "users" ADD COLUMN "deletion_requested_at" timestamp(3) with time zone;
  ALTER TABLE "users" ADD COLUMN "deletion_requested_by" "enum_users_deletion_requested_by";
  ALTER TABLE "users" ADD COLUMN "deletion_scheduled_for" timestamp(3) with time zone;
  ALTER TABLE "users" ADD COLUMN "deletion_erased_at" timestamp(3) with time zone;
  ALTER TABLE "users" ADD COLUMN "deletion_completed_at" timestamp(3) with time zone;
  ALTER TABLE "users" ADD COLUMN "deletion_last_error" varchar;
  CREATE INDEX "users_deletion_deletion_scheduled_for_idx" ON "users" USING btree ("deletion_scheduled_for");`)
  // Accounts made before this column: those without a GitHub or Google sign-in chose a password at sign-up
  // (or can set one with a reset); deleting such an account asks for it.
  await db.execute(sql`
  UPDATE "users" SET "password_set" = true
  WHERE NOT EXISTS (SELECT 1 FROM "oauth_identities" WHERE "oauth_identities"."user_id" = "users"."id");`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "auth_tokens" ALTER COLUMN "purpose" SET DATA TYPE text;
  DROP TYPE "public"."enum_auth_tokens_purpose";
  CREATE TYPE "public"."enum_auth_tokens_purpose" AS ENUM('magic_link', 'verify_email', 'email_change');
  ALTER TABLE "auth_tokens" ALTER COLUMN "purpose" SET DATA TYPE "public"."enum_auth_tokens_purpose" USING "purpose"::"public"."enum_auth_tokens_purpose";
  ALTER TABLE "webhook_endpoints_events" ALTER COLUMN "value" SET DATA TYPE text;
  DROP TYPE "public"."enum_webhook_endpoints_events";
  CREATE TYPE "public"."enum_webhook_endpoints_events" AS ENUM('order.paid', 'order.refunded', 'license.created', 'license.updated', 'license.revoked', 'subscription.created', 'subscription.updated', 'subscription.canceled', 'seat.claimed', 'seat.revoked', 'activation.created', 'activation.deleted');
  ALTER TABLE "webhook_endpoints_events" ALTER COLUMN "value" SET DATA TYPE "public"."enum_webhook_endpoints_events" USING "value"::"public"."enum_webhook_endpoints_events";
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_log_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_log_task_slug" AS ENUM('inline', 'sendEmail', 'pruneRateLimits', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'refundLicenseChange', 'sendLicenseChangeEmail', 'sendSupportReply', 'deliverWebhook', 'deleteOldWebhookEvents', 'reapStuckJobs');
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_log_task_slug" USING "task_slug"::"public"."enum_payload_jobs_log_task_slug";
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_task_slug" AS ENUM('inline', 'sendEmail', 'pruneRateLimits', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'refundLicenseChange', 'sendLicenseChangeEmail', 'sendSupportReply', 'deliverWebhook', 'deleteOldWebhookEvents', 'reapStuckJobs');
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_task_slug" USING "task_slug"::"public"."enum_payload_jobs_task_slug";
  DROP INDEX "users_deletion_deletion_scheduled_for_idx";
  ALTER TABLE "users" DROP COLUMN "password_set";
  ALTER TABLE "users" DROP COLUMN "deletion_requested_at";
  ALTER TABLE "users" DROP COLUMN "deletion_requested_by";
  ALTER TABLE "users" DROP COLUMN "deletion_scheduled_for";
  ALTER TABLE "users" DROP COLUMN "deletion_erased_at";
  ALTER TABLE "users" DROP COLUMN "deletion_completed_at";
  ALTER TABLE "users" DROP COLUMN "deletion_last_error";
  DROP TYPE "public"."enum_users_deletion_requested_by";`)
}
