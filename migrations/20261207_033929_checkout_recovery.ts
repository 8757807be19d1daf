import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_checkout_recoveries_status" AS ENUM('waiting', 'emailed', 'not_sent', 'recovered');
  CREATE TYPE "public"."enum_checkout_recoveries_reason" AS ENUM('recovery_off', 'no_recovery_link', 'no_consent', 'no_email', 'paid_since', 'unsubscribed', 'recently_emailed', 'link_expired');
  ALTER TYPE "public"."enum_payload_jobs_log_task_slug" ADD VALUE 'sendRecoveryEmail' BEFORE 'sendSupportReply';
  ALTER TYPE "public"."enum_payload_jobs_task_slug" ADD VALUE 'sendRecoveryEmail' BEFORE 'sendSupportReply';
  CREATE TABLE "checkout_recoveries" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"checkout_session_id" varchar NOT NULL,
  	"user_id" integer,
  	"email" varchar,
  	"email_hash" varchar,
  	"plan" varchar,
  	"amount" numeric,
  	"currency" varchar,
  	"started_at" timestamp(3) with time zone,
  	"expired_at" timestamp(3) with time zone,
  	"status" "enum_checkout_recoveries_status" NOT NULL,
  	"reason" "enum_checkout_recoveries_reason",
  	"email_due_at" timestamp(3) with time zone,
  	"emailed_at" timestamp(3) with time zone,
  	"recovery_url" varchar,
  	"recovery_expires_at" timestamp(3) with time zone,
  	"recovered_session_id" varchar,
  	"recovered_at" timestamp(3) with time zone,
  	"recovered_amount" numeric,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "email_unsubscribes" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"email_hash" varchar NOT NULL,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "checkout_recoveries_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "email_unsubscribes_id" integer;
  ALTER TABLE "checkout_recoveries" ADD CONSTRAINT "checkout_recoveries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  CREATE UNIQUE INDEX "checkout_recoveries_checkout_session_id_idx" ON "checkout_recoveries" USING btree ("checkout_session_id");
  CREATE INDEX "checkout_recoveries_user_idx" ON "checkout_recoveries" USING btree ("user_id");
  CREATE INDEX "checkout_recoveries_email_hash_idx" ON "checkout_recoveries" USING btree ("email_hash");
  CREATE INDEX "checkout_recoveries_status_idx" ON "checkout_recoveries" USING btree ("status");
  CREATE INDEX "checkout_recoveries_emailed_at_idx" ON "checkout_recoveries" USING btree ("emailed_at");
  CREATE INDEX "checkout_recoveries_updated_at_idx" ON "checkout_recoveries" USING btree ("updated_at");
  CREATE INDEX "checkout_recoveries_created_at_idx" ON "checkout_recoveries" USING btree ("created_at");
  CREATE UNIQUE INDEX "email_unsubscribes_email_hash_idx" ON "email_unsubscribes" USING btree ("email_hash");
  CREATE INDEX "email_unsubscribes_updated_at_idx" ON "email_unsubscribes" USING btree ("updated_at");
  CREATE INDEX "email_unsubscribes_created_at_idx" ON "email_unsubscribes" USING btree ("created_at");
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_checkout_recoveries_fk" FOREIGN KEY ("checkout_recoveries_id") REFERENCES "public"."checkout_recoveries"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_email_unsubscribes_fk" FOREIGN KEY ("email_unsubscribes_id") REFERENCES "public"."email_unsubscribes"("id") ON DELETE cascade ON UPDATE no action;
  CREATE INDEX "payload_locked_documents_rels_checkout_recoveries_id_idx" ON "payload_locked_documents_rels" USING btree ("checkout_recoveries_id");
  CREATE INDEX "payload_locked_documents_rels_email_unsubscribes_id_idx" ON "payload_locked_documents_rels" USING btree ("email_unsubscribes_id");`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "checkout_recoveries" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "email_unsubscribes" DISABLE ROW LEVEL SECURITY;
  DROP TABLE "checkout_recoveries" CASCADE;
  DROP TABLE "email_unsubscribes" CASCADE;
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_checkout_recoveries_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_email_unsubscribes_fk";
  
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_log_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_log_task_slug" AS ENUM('inline', 'sendEmail', 'pruneRateLimits', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'refundLicenseChange', 'sendLicenseChangeEmail', 'sendSupportReply', 'syncCommunityRoles', 'checkCommunity', 'eraseDueAccounts', 'deliverWebhook', 'deleteOldWebhookEvents', 'reapStuckJobs');
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_log_task_slug" USING "task_slug"::"public"."enum_payload_jobs_log_task_slug";
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_task_slug" AS ENUM('inline', 'sendEmail', 'pruneRateLimits', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'refundLicenseChange', 'sendLicenseChangeEmail', 'sendSupportReply', 'syncCommunityRoles', 'checkCommunity', 'eraseDueAccounts', 'deliverWebhook', 'deleteOldWebhookEvents', 'reapStuckJobs');
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_task_slug" USING "task_slug"::"public"."enum_payload_jobs_task_slug";
  DROP INDEX "payload_locked_documents_rels_checkout_recoveries_id_idx";
  DROP INDEX "payload_locked_documents_rels_email_unsubscribes_id_idx";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "checkout_recoveries_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "email_unsubscribes_id";
  DROP TYPE "public"."enum_checkout_recoveries_status";
  DROP TYPE "public"."enum_checkout_recoveries_reason";`)
}
