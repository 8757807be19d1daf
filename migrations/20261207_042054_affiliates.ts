import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_affiliates_status" AS ENUM('pending', 'active', 'disabled');
  CREATE TYPE "public"."enum_affiliate_referrals_kind" AS ENUM('purchase', 'subscription');
  CREATE TYPE "public"."enum_affiliate_commissions_kind" AS ENUM('commission', 'adjustment');
  CREATE TYPE "public"."enum_affiliate_commissions_status" AS ENUM('pending', 'held', 'void', 'paid');
  ALTER TYPE "public"."enum_webhook_endpoints_events" ADD VALUE 'commission.created';
  ALTER TYPE "public"."enum_webhook_endpoints_events" ADD VALUE 'commission.voided';
  ALTER TYPE "public"."enum_payload_jobs_log_task_slug" ADD VALUE 'syncCommission' BEFORE 'sendRecoveryEmail';
  ALTER TYPE "public"."enum_payload_jobs_task_slug" ADD VALUE 'syncCommission' BEFORE 'sendRecoveryEmail';
  CREATE TABLE "affiliates" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"user_id" integer NOT NULL,
  	"code" varchar NOT NULL,
  	"status" "enum_affiliates_status" DEFAULT 'pending' NOT NULL,
  	"rate_bps" numeric NOT NULL,
  	"payout_email" varchar NOT NULL,
  	"approved_at" timestamp(3) with time zone,
  	"approval_emailed_at" timestamp(3) with time zone,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "affiliate_clicks" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"affiliate_id" integer NOT NULL,
  	"visitor_key" varchar NOT NULL,
  	"day" varchar NOT NULL,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "affiliate_referrals" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"affiliate_id" integer NOT NULL,
  	"processor_ref" varchar NOT NULL,
  	"kind" "enum_affiliate_referrals_kind" NOT NULL,
  	"click_id" integer,
  	"user_id" integer,
  	"checkout_session_id" varchar,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "affiliate_commissions" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"affiliate_id" integer NOT NULL,
  	"source_key" varchar NOT NULL,
  	"payment_id" integer NOT NULL,
  	"kind" "enum_affiliate_commissions_kind" NOT NULL,
  	"basis" numeric,
  	"rate_bps" numeric,
  	"amount" numeric NOT NULL,
  	"currency" varchar NOT NULL,
  	"status" "enum_affiliate_commissions_status" NOT NULL,
  	"available_at" timestamp(3) with time zone,
  	"payout_id" integer,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "affiliate_payouts" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"affiliate_id" integer NOT NULL,
  	"reference" varchar NOT NULL,
  	"currency" varchar NOT NULL,
  	"amount" numeric NOT NULL,
  	"commissions" numeric NOT NULL,
  	"payout_email" varchar,
  	"reason" varchar,
  	"recorded_by_id" integer,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "affiliates_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "affiliate_clicks_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "affiliate_referrals_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "affiliate_commissions_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "affiliate_payouts_id" integer;
  ALTER TABLE "affiliates" ADD CONSTRAINT "affiliates_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "affiliate_clicks" ADD CONSTRAINT "affiliate_clicks_affiliate_id_affiliates_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."affiliates"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "affiliate_referrals" ADD CONSTRAINT "affiliate_referrals_affiliate_id_affiliates_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."affiliates"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "affiliate_referrals" ADD CONSTRAINT "affiliate_referrals_click_id_affiliate_clicks_id_fk" FOREIGN KEY ("click_id") REFERENCES "public"."affiliate_clicks"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "affiliate_referrals" ADD CONSTRAINT "affiliate_referrals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "affiliate_commissions" ADD CONSTRAINT "affiliate_commissions_affiliate_id_affiliates_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."affiliates"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "affiliate_commissions" ADD CONSTRAINT "affiliate_commissions_payment_id_payment_history_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payment_history"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "affiliate_commissions" ADD CONSTRAINT "affiliate_commissions_payout_id_affiliate_payouts_id_fk" FOREIGN KEY ("payout_id") REFERENCES "public"."affiliate_payouts"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "affiliate_payouts" ADD CONSTRAINT "affiliate_payouts_affiliate_id_affiliates_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."affiliates"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "affiliate_payouts" ADD CONSTRAINT "affiliate_payouts_recorded_by_id_users_id_fk" FOREIGN KEY ("recorded_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  CREATE UNIQUE INDEX "affiliates_user_idx" ON "affiliates" USING btree ("user_id");
  CREATE UNIQUE INDEX "affiliates_code_idx" ON "affiliates" USING btree ("code");
  CREATE INDEX "affiliates_updated_at_idx" ON "affiliates" USING btree ("updated_at");
  CREATE INDEX "affiliates_created_at_idx" ON "affiliates" USING btree ("created_at");
  CREATE INDEX "affiliate_clicks_affiliate_idx" ON "affiliate_clicks" USING btree ("affiliate_id");
  CREATE INDEX "affiliate_clicks_updated_at_idx" ON "affiliate_clicks" USING btree ("updated_at");
  CREATE INDEX "affiliate_clicks_created_at_idx" ON "affiliate_clicks" USING btree ("created_at");
  CREATE UNIQUE INDEX "affiliate_visitorKey_idx" ON "affiliate_clicks" USING btree ("affiliate_id","visitor_key");
  CREATE INDEX "affiliate_referrals_affiliate_idx" ON "affiliate_referrals" USING btree ("affiliate_id");
  CREATE UNIQUE INDEX "affiliate_referrals_processor_ref_idx" ON "affiliate_referrals" USING btree ("processor_ref");
  CREATE INDEX "affiliate_referrals_click_idx" ON "affiliate_referrals" USING btree ("click_id");
  CREATE INDEX "affiliate_referrals_user_idx" ON "affiliate_referrals" USING btree ("user_id");
  CREATE INDEX "affiliate_referrals_updated_at_idx" ON "affiliate_referrals" USING btree ("updated_at");
  CREATE INDEX "affiliate_referrals_created_at_idx" ON "affiliate_referrals" USING btree ("created_at");
  CREATE INDEX "affiliate_commissions_affiliate_idx" ON "affiliate_commissions" USING btree ("affiliate_id");
  CREATE UNIQUE INDEX "affiliate_commissions_source_key_idx" ON "affiliate_commissions" USING btree ("source_key");
  CREATE INDEX "affiliate_commissions_payment_idx" ON "affiliate_commissions" USING btree ("payment_id");
  CREATE INDEX "affiliate_commissions_status_idx" ON "affiliate_commissions" USING btree ("status");
  CREATE INDEX "affiliate_commissions_payout_idx" ON "affiliate_commissions" USING btree ("payout_id");
  CREATE INDEX "affiliate_commissions_updated_at_idx" ON "affiliate_commissions" USING btree ("updated_at");
  CREATE INDEX "affiliate_commissions_created_at_idx" ON "affiliate_commissions" USING btree ("created_at");
  CREATE INDEX "affiliate_payouts_affiliate_idx" ON "affiliate_payouts" USING btree ("affiliate_id");
  CREATE UNIQUE INDEX "affiliate_payouts_reference_idx" ON "affiliate_payouts" USING btree ("reference");
  CREATE INDEX "affiliate_payouts_recorded_by_idx" ON "affiliate_payouts" USING btree ("recorded_by_id");
  CREATE INDEX "affiliate_payouts_updated_at_idx" ON "affiliate_payouts" USING btree ("updated_at");
  CREATE INDEX "affiliate_payouts_created_at_idx" ON "affiliate_payouts" USING btree ("created_at");
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_affiliates_fk" FOREIGN KEY ("affiliates_id") REFERENCES "public"."affiliates"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_affiliate_clicks_fk" FOREIGN KEY ("affiliate_clicks_id") REFERENCES "public"."affiliate_clicks"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_affiliate_referrals_fk" FOREIGN KEY ("affiliate_referrals_id") REFERENCES "public"."affiliate_referrals"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_affiliate_commissions_fk" FOREIGN KEY ("affiliate_commissions_id") REFERENCES "public"."affiliate_commissions"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_affiliate_payouts_fk" FOREIGN KEY ("affiliate_payouts_id") REFERENCES "public"."affiliate_payouts"("id") ON DELETE cascade ON UPDATE no action;
  CREATE INDEX "payload_locked_documents_rels_affiliates_id_idx" ON "payload_locked_documents_rels" USING btree ("affiliates_id");
  CREATE INDEX "payload_locked_documents_rels_affiliate_clicks_id_idx" ON "payload_locked_documents_rels" USING btree ("affiliate_clicks_id");
  CREATE INDEX "payload_locked_documents_rels_affiliate_referrals_id_idx" ON "payload_locked_documents_rels" USING btree ("affiliate_referrals_id");
  CREATE INDEX "payload_locked_documents_rels_affiliate_commissions_id_idx" ON "payload_locked_documents_rels" USING btree ("affiliate_commissions_id");
  CREATE INDEX "payload_locked_documents_rels_affiliate_payouts_id_idx" ON "payload_locked_documents_rels" USING btree ("affiliate_payouts_id");`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "affiliates" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "affiliate_clicks" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "affiliate_referrals" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "affiliate_commissions" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "affiliate_payouts" DISABLE ROW LEVEL SECURITY;
  DROP TABLE "affiliates" CASCADE;
  DROP TABLE "affiliate_clicks" CASCADE;
  DROP TABLE "affiliate_referrals" CASCADE;
  DROP TABLE "affiliate_commissions" CASCADE;
  DROP TABLE "affiliate_payouts" CASCADE;
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_affiliates_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_affiliate_clicks_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_affiliate_referrals_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_affiliate_commissions_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_affiliate_payouts_fk";
  
  ALTER TABLE "webhook_endpoints_events" ALTER COLUMN "value" SET DATA TYPE text;
  DROP TYPE "public"."enum_webhook_endpoints_events";
  CREATE TYPE "public"."enum_webhook_endpoints_events" AS ENUM('order.paid', 'order.refunded', 'license.created', 'license.updated', 'license.revoked', 'subscription.created', 'subscription.updated', 'subscription.canceled', 'seat.claimed', 'seat.revoked', 'activation.created', 'activation.deleted', 'customer.deleted', 'community.granted', 'community.revoked');
  ALTER TABLE "webhook_endpoints_events" ALTER COLUMN "value" SET DATA TYPE "public"."enum_webhook_endpoints_events" USING "value"::"public"."enum_webhook_endpoints_events";
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_log_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_log_task_slug" AS ENUM('inline', 'sendEmail', 'pruneRateLimits', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'refundLicenseChange', 'sendLicenseChangeEmail', 'sendRecoveryEmail', 'sendSupportReply', 'syncCommunityRoles', 'checkCommunity', 'eraseDueAccounts', 'deliverWebhook', 'deleteOldWebhookEvents', 'reapStuckJobs');
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_log_task_slug" USING "task_slug"::"public"."enum_payload_jobs_log_task_slug";
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_task_slug" AS ENUM('inline', 'sendEmail', 'pruneRateLimits', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'refundLicenseChange', 'sendLicenseChangeEmail', 'sendRecoveryEmail', 'sendSupportReply', 'syncCommunityRoles', 'checkCommunity', 'eraseDueAccounts', 'deliverWebhook', 'deleteOldWebhookEvents', 'reapStuckJobs');
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_task_slug" USING "task_slug"::"public"."enum_payload_jobs_task_slug";
  DROP INDEX "payload_locked_documents_rels_affiliates_id_idx";
  DROP INDEX "payload_locked_documents_rels_affiliate_clicks_id_idx";
  DROP INDEX "payload_locked_documents_rels_affiliate_referrals_id_idx";
  DROP INDEX "payload_locked_documents_rels_affiliate_commissions_id_idx";
  DROP INDEX "payload_locked_documents_rels_affiliate_payouts_id_idx";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "affiliates_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "affiliate_clicks_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "affiliate_referrals_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "affiliate_commissions_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "affiliate_payouts_id";
  DROP TYPE "public"."enum_affiliates_status";
  DROP TYPE "public"."enum_affiliate_referrals_kind";
  DROP TYPE "public"."enum_affiliate_commissions_kind";
  DROP TYPE "public"."enum_affiliate_commissions_status";`)
}
