import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_plans_update_policy" AS ENUM('lifetime', 'major', 'months');
  CREATE TYPE "public"."enum_licenses_update_policy" AS ENUM('lifetime', 'major', 'months');
  CREATE TYPE "public"."enum_license_changes_kind" AS ENUM('upgrade', 'renewal');
  CREATE TYPE "public"."enum_license_changes_status" AS ENUM('pending', 'applied', 'refused', 'reversed', 'failed');
  CREATE TYPE "public"."enum_license_changes_dispute_status" AS ENUM('none', 'open', 'won', 'lost');
  ALTER TYPE "public"."enum_payload_jobs_log_task_slug" ADD VALUE 'refundLicenseChange' BEFORE 'sendSupportReply';
  ALTER TYPE "public"."enum_payload_jobs_log_task_slug" ADD VALUE 'sendLicenseChangeEmail' BEFORE 'sendSupportReply';
  ALTER TYPE "public"."enum_payload_jobs_task_slug" ADD VALUE 'refundLicenseChange' BEFORE 'sendSupportReply';
  ALTER TYPE "public"."enum_payload_jobs_task_slug" ADD VALUE 'sendLicenseChangeEmail' BEFORE 'sendSupportReply';
  CREATE TABLE "license_changes" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"kind" "enum_license_changes_kind" NOT NULL,
  	"license_id" integer,
  	"user_id" integer,
  	"from_plan_id" integer,
  	"to_plan_id" integer,
  	"status" "enum_license_changes_status" NOT NULL,
  	"reason" varchar,
  	"processor_payment_intent_id" varchar,
  	"processor_checkout_session_id" varchar,
  	"processor_charge_id" varchar,
  	"amount" numeric,
  	"credit" numeric,
  	"currency" varchar,
  	"refunded_amount" numeric DEFAULT 0,
  	"dispute_status" "enum_license_changes_dispute_status" DEFAULT 'none',
  	"license_before" jsonb,
  	"license_after" jsonb,
  	"applied_at" timestamp(3) with time zone,
  	"reversed_at" timestamp(3) with time zone,
  	"refund_requested_at" timestamp(3) with time zone,
  	"email_sent_at" timestamp(3) with time zone,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  ALTER TABLE "plans" ADD COLUMN "update_policy" "enum_plans_update_policy" DEFAULT 'lifetime';
  ALTER TABLE "plans" ADD COLUMN "update_months" numeric;
  ALTER TABLE "plans" ADD COLUMN "renewal_price_id" varchar;
  ALTER TABLE "licenses" ADD COLUMN "update_policy" "enum_licenses_update_policy";
  ALTER TABLE "licenses" ADD COLUMN "updates_major" numeric;
  ALTER TABLE "licenses" ADD COLUMN "updates_until" timestamp(3) with time zone;
  ALTER TABLE "licenses" ADD COLUMN "upgraded_at" timestamp(3) with time zone;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "license_changes_id" integer;
  ALTER TABLE "license_changes" ADD CONSTRAINT "license_changes_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "license_changes" ADD CONSTRAINT "license_changes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "license_changes" ADD CONSTRAINT "license_changes_from_plan_id_plans_id_fk" FOREIGN KEY ("from_plan_id") REFERENCES "public"."plans"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "license_changes" ADD CONSTRAINT "license_changes_to_plan_id_plans_id_fk" FOREIGN KEY ("to_plan_id") REFERENCES "public"."plans"("id") ON DELETE set null ON UPDATE no action;
  CREATE INDEX "license_changes_license_idx" ON "license_changes" USING btree ("license_id");
  CREATE INDEX "license_changes_user_idx" ON "license_changes" USING btree ("user_id");
  CREATE INDEX "license_changes_from_plan_idx" ON "license_changes" USING btree ("from_plan_id");
  CREATE INDEX "license_changes_to_plan_idx" ON "license_changes" USING btree ("to_plan_id");
  CREATE INDEX "license_changes_status_idx" ON "license_changes" USING btree ("status");
  CREATE UNIQUE INDEX "license_changes_processor_payment_intent_id_idx" ON "license_changes" USING btree ("processor_payment_intent_id");
  CREATE UNIQUE INDEX "license_changes_processor_checkout_session_id_idx" ON "license_changes" USING btree ("processor_checkout_session_id");
  CREATE INDEX "license_changes_processor_charge_id_idx" ON "license_changes" USING btree ("processor_charge_id");
  CREATE INDEX "license_changes_updated_at_idx" ON "license_changes" USING btree ("updated_at");
  CREATE INDEX "license_changes_created_at_idx" ON "license_changes" USING btree ("created_at");
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_license_changes_fk" FOREIGN KEY ("license_changes_id") REFERENCES "public"."license_changes"("id") ON DELETE cascade ON UPDATE no action;
  CREATE UNIQUE INDEX "plans_renewal_price_id_idx" ON "plans" USING btree ("renewal_price_id");
  CREATE INDEX "payload_locked_documents_rels_license_changes_id_idx" ON "payload_locked_documents_rels" USING btree ("license_changes_id");`)
  // Data, written by hand: the standard plan's updates are what its pricing page always promised (the
  // major version current at purchase); licenses granted before windows existed get their plan's
  // policy, a major window opening at the newest stable release published when they were granted.
  await db.execute(sql`
  UPDATE "plans" SET "update_policy" = 'major' WHERE "slug" = 'standard';
  UPDATE "licenses" AS l SET
    "update_policy" = p."update_policy"::text::"enum_licenses_update_policy",
    "updates_major" = CASE WHEN p."update_policy" = 'major' THEN GREATEST(1, COALESCE((
      SELECT max(substring(r."version" from '^([0-9]+)[.]')::int) FROM "releases" r
      WHERE r."prerelease" IS NOT TRUE AND r."version" !~ '-' AND r."published_at" <= COALESCE(l."granted_at", l."created_at")), 1)) END,
    "updates_until" = CASE WHEN p."update_policy" = 'months'
      THEN COALESCE(l."granted_at", l."created_at") + make_interval(months => COALESCE(p."update_months", 12)::int) END
  FROM "plans" p WHERE p."id" = l."plan_id" AND l."update_policy" IS NULL;`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "license_changes" DISABLE ROW LEVEL SECURITY;
  DROP TABLE "license_changes" CASCADE;
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_license_changes_fk";
  
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_log_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_log_task_slug" AS ENUM('inline', 'sendEmail', 'pruneRateLimits', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'sendSupportReply', 'reapStuckJobs');
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_log_task_slug" USING "task_slug"::"public"."enum_payload_jobs_log_task_slug";
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_task_slug" AS ENUM('inline', 'sendEmail', 'pruneRateLimits', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'sendSupportReply', 'reapStuckJobs');
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_task_slug" USING "task_slug"::"public"."enum_payload_jobs_task_slug";
  DROP INDEX "plans_renewal_price_id_idx";
  DROP INDEX "payload_locked_documents_rels_license_changes_id_idx";
  ALTER TABLE "plans" DROP COLUMN "update_policy";
  ALTER TABLE "plans" DROP COLUMN "update_months";
  ALTER TABLE "plans" DROP COLUMN "renewal_price_id";
  ALTER TABLE "licenses" DROP COLUMN "update_policy";
  ALTER TABLE "licenses" DROP COLUMN "updates_major";
  ALTER TABLE "licenses" DROP COLUMN "updates_until";
  ALTER TABLE "licenses" DROP COLUMN "upgraded_at";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "license_changes_id";
  DROP TYPE "public"."enum_plans_update_policy";
  DROP TYPE "public"."enum_licenses_update_policy";
  DROP TYPE "public"."enum_license_changes_kind";
  DROP TYPE "public"."enum_license_changes_status";
  DROP TYPE "public"."enum_license_changes_dispute_status";`)
}
