import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_licenses_source" AS ENUM('one_time_purchase', 'subscription', 'manual');
  CREATE TYPE "public"."enum_licenses_status" AS ENUM('active', 'suspended', 'revoked', 'expired');
  CREATE TYPE "public"."enum_licenses_override" AS ENUM('none', 'revoked', 'active');
  CREATE TYPE "public"."enum_user_subscriptions_status" AS ENUM('active', 'trialing', 'past_due', 'canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused');
  CREATE TYPE "public"."enum_user_subscriptions_billing_cycle" AS ENUM('monthly', 'yearly');
  CREATE TYPE "public"."enum_user_subscriptions_dispute_status" AS ENUM('none', 'open', 'won', 'lost');
  CREATE TYPE "public"."enum_one_time_purchases_status" AS ENUM('pending', 'succeeded', 'failed');
  CREATE TYPE "public"."enum_one_time_purchases_dispute_status" AS ENUM('none', 'open', 'won', 'lost');
  CREATE TYPE "public"."enum_payment_history_payment_type" AS ENUM('recurring', 'one_time');
  CREATE TYPE "public"."enum_payment_history_status" AS ENUM('succeeded', 'failed');
  CREATE TYPE "public"."enum_processor_events_status" AS ENUM('received', 'processed', 'ignored', 'failed');
  CREATE TYPE "public"."enum_payload_jobs_log_task_slug" AS ENUM('inline', 'sendLicenseEmail');
  CREATE TYPE "public"."enum_payload_jobs_log_state" AS ENUM('failed', 'succeeded');
  CREATE TYPE "public"."enum_payload_jobs_task_slug" AS ENUM('inline', 'sendLicenseEmail');
  CREATE TABLE "licenses" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"key" varchar NOT NULL,
  	"user_id" integer,
  	"email" varchar,
  	"plan_id" integer NOT NULL,
  	"source" "enum_licenses_source" NOT NULL,
  	"one_time_purchase_id" integer,
  	"subscription_id" integer,
  	"status" "enum_licenses_status" NOT NULL,
  	"valid_until" timestamp(3) with time zone,
  	"override" "enum_licenses_override" DEFAULT 'none',
  	"override_reason" varchar,
  	"granted_at" timestamp(3) with time zone,
  	"revoked_at" timestamp(3) with time zone,
  	"revoked_reason" varchar,
  	"revoked_by_id" integer,
  	"download_count" numeric DEFAULT 0,
  	"last_downloaded_at" timestamp(3) with time zone,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "audit_log" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"actor_id" integer,
  	"action" varchar NOT NULL,
  	"target_collection" varchar NOT NULL,
  	"target_id" varchar NOT NULL,
  	"reason" varchar,
  	"before" jsonb,
  	"after" jsonb,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "user_subscriptions" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"user_id" integer,
  	"email" varchar,
  	"plan_id" integer,
  	"processor_customer_id" varchar,
  	"processor_subscription_id" varchar NOT NULL,
  	"processor_price_id" varchar,
  	"status" "enum_user_subscriptions_status" NOT NULL,
  	"billing_cycle" "enum_user_subscriptions_billing_cycle",
  	"current_period_end" timestamp(3) with time zone,
  	"cancel_at_period_end" boolean DEFAULT false,
  	"canceled_at" timestamp(3) with time zone,
  	"fully_refunded" boolean DEFAULT false,
  	"dispute_status" "enum_user_subscriptions_dispute_status" DEFAULT 'none',
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "one_time_purchases" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"user_id" integer,
  	"email" varchar,
  	"plan_id" integer,
  	"processor_payment_intent_id" varchar NOT NULL,
  	"processor_checkout_session_id" varchar,
  	"processor_customer_id" varchar,
  	"processor_charge_id" varchar,
  	"processor_price_id" varchar,
  	"amount" numeric,
  	"currency" varchar,
  	"status" "enum_one_time_purchases_status" NOT NULL,
  	"refunded_amount" numeric DEFAULT 0,
  	"dispute_status" "enum_one_time_purchases_dispute_status" DEFAULT 'none',
  	"granted_at" timestamp(3) with time zone,
  	"revoked_at" timestamp(3) with time zone,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "payment_history" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"user_id" integer,
  	"email" varchar,
  	"processor_payment_id" varchar NOT NULL,
  	"subscription_id" integer,
  	"amount" numeric NOT NULL,
  	"currency" varchar NOT NULL,
  	"payment_type" "enum_payment_history_payment_type" NOT NULL,
  	"status" "enum_payment_history_status" NOT NULL,
  	"invoice_url" varchar,
  	"paid_at" timestamp(3) with time zone,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "processor_events" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"event_id" varchar NOT NULL,
  	"type" varchar NOT NULL,
  	"livemode" boolean DEFAULT false,
  	"status" "enum_processor_events_status" NOT NULL,
  	"attempts" numeric DEFAULT 0,
  	"last_error" varchar,
  	"object_id" varchar,
  	"received_at" timestamp(3) with time zone NOT NULL,
  	"processed_at" timestamp(3) with time zone,
  	"payload" jsonb NOT NULL,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "analytics_events" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"name" varchar NOT NULL,
  	"user_id" integer,
  	"email" varchar,
  	"properties" jsonb,
  	"occurred_at" timestamp(3) with time zone NOT NULL,
  	"source_event_id" varchar NOT NULL,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "payload_jobs_log" (
  	"_order" integer NOT NULL,
  	"_parent_id" integer NOT NULL,
  	"id" varchar PRIMARY KEY NOT NULL,
  	"executed_at" timestamp(3) with time zone NOT NULL,
  	"completed_at" timestamp(3) with time zone NOT NULL,
  	"task_slug" "enum_payload_jobs_log_task_slug" NOT NULL,
  	"task_i_d" varchar NOT NULL,
  	"input" jsonb,
  	"output" jsonb,
  	"state" "enum_payload_jobs_log_state" NOT NULL,
  	"error" jsonb
  );
  
  CREATE TABLE "payload_jobs" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"input" jsonb,
  	"completed_at" timestamp(3) with time zone,
  	"total_tried" numeric DEFAULT 0,
  	"has_error" boolean DEFAULT false,
  	"error" jsonb,
  	"task_slug" "enum_payload_jobs_task_slug",
  	"queue" varchar DEFAULT 'default',
  	"wait_until" timestamp(3) with time zone,
  	"processing" boolean DEFAULT false,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  ALTER TABLE "users" ADD COLUMN "email_verified" boolean DEFAULT false;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "licenses_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "audit_log_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "user_subscriptions_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "one_time_purchases_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "payment_history_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "processor_events_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "analytics_events_id" integer;
  ALTER TABLE "licenses" ADD CONSTRAINT "licenses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "licenses" ADD CONSTRAINT "licenses_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "licenses" ADD CONSTRAINT "licenses_one_time_purchase_id_one_time_purchases_id_fk" FOREIGN KEY ("one_time_purchase_id") REFERENCES "public"."one_time_purchases"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "licenses" ADD CONSTRAINT "licenses_subscription_id_user_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."user_subscriptions"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "licenses" ADD CONSTRAINT "licenses_revoked_by_id_users_id_fk" FOREIGN KEY ("revoked_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "user_subscriptions" ADD CONSTRAINT "user_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "user_subscriptions" ADD CONSTRAINT "user_subscriptions_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "one_time_purchases" ADD CONSTRAINT "one_time_purchases_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "one_time_purchases" ADD CONSTRAINT "one_time_purchases_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "payment_history" ADD CONSTRAINT "payment_history_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "payment_history" ADD CONSTRAINT "payment_history_subscription_id_user_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."user_subscriptions"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "analytics_events" ADD CONSTRAINT "analytics_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "payload_jobs_log" ADD CONSTRAINT "payload_jobs_log_parent_id_fk" FOREIGN KEY ("_parent_id") REFERENCES "public"."payload_jobs"("id") ON DELETE cascade ON UPDATE no action;
  CREATE UNIQUE INDEX "licenses_key_idx" ON "licenses" USING btree ("key");
  CREATE INDEX "licenses_user_idx" ON "licenses" USING btree ("user_id");
  CREATE INDEX "licenses_email_idx" ON "licenses" USING btree ("email");
  CREATE INDEX "licenses_plan_idx" ON "licenses" USING btree ("plan_id");
  CREATE UNIQUE INDEX "licenses_one_time_purchase_idx" ON "licenses" USING btree ("one_time_purchase_id");
  CREATE UNIQUE INDEX "licenses_subscription_idx" ON "licenses" USING btree ("subscription_id");
  CREATE INDEX "licenses_status_idx" ON "licenses" USING btree ("status");
  CREATE INDEX "licenses_revoked_by_idx" ON "licenses" USING btree ("revoked_by_id");
  CREATE INDEX "licenses_updated_at_idx" ON "licenses" USING btree ("updated_at");
  CREATE INDEX "licenses_created_at_idx" ON "licenses" USING btree ("created_at");
  CREATE INDEX "audit_log_actor_idx" ON "audit_log" USING btree ("actor_id");
  CREATE INDEX "audit_log_action_idx" ON "audit_log" USING btree ("action");
  CREATE INDEX "audit_log_target_id_idx" ON "audit_log" USING btree ("target_id");
  CREATE INDEX "audit_log_updated_at_idx" ON "audit_log" USING btree ("updated_at");
  CREATE INDEX "audit_log_created_at_idx" ON "audit_log" USING btree ("created_at");
  CREATE INDEX "user_subscriptions_user_idx" ON "user_subscriptions" USING btree ("user_id");
  CREATE INDEX "user_subscriptions_email_idx" ON "user_subscriptions" USING btree ("email");
  CREATE INDEX "user_subscriptions_plan_idx" ON "user_subscriptions" USING btree ("plan_id");
  CREATE INDEX "user_subscriptions_processor_customer_id_idx" ON "user_subscriptions" USING btree ("processor_customer_id");
  CREATE UNIQUE INDEX "user_subscriptions_processor_subscription_id_idx" ON "user_subscriptions" USING btree ("processor_subscription_id");
  CREATE INDEX "user_subscriptions_updated_at_idx" ON "user_subscriptions" USING btree ("updated_at");
  CREATE INDEX "user_subscriptions_created_at_idx" ON "user_subscriptions" USING btree ("created_at");
  CREATE INDEX "one_time_purchases_user_idx" ON "one_time_purchases" USING btree ("user_id");
  CREATE INDEX "one_time_purchases_email_idx" ON "one_time_purchases" USING btree ("email");
  CREATE INDEX "one_time_purchases_plan_idx" ON "one_time_purchases" USING btree ("plan_id");
  CREATE UNIQUE INDEX "one_time_purchases_processor_payment_intent_id_idx" ON "one_time_purchases" USING btree ("processor_payment_intent_id");
  CREATE UNIQUE INDEX "one_time_purchases_processor_checkout_session_id_idx" ON "one_time_purchases" USING btree ("processor_checkout_session_id");
  CREATE INDEX "one_time_purchases_processor_customer_id_idx" ON "one_time_purchases" USING btree ("processor_customer_id");
  CREATE INDEX "one_time_purchases_processor_charge_id_idx" ON "one_time_purchases" USING btree ("processor_charge_id");
  CREATE INDEX "one_time_purchases_updated_at_idx" ON "one_time_purchases" USING btree ("updated_at");
  CREATE INDEX "one_time_purchases_created_at_idx" ON "one_time_purchases" USING btree ("created_at");
  CREATE INDEX "payment_history_user_idx" ON "payment_history" USING btree ("user_id");
  CREATE INDEX "payment_history_email_idx" ON "payment_history" USING btree ("email");
  CREATE UNIQUE INDEX "payment_history_processor_payment_id_idx" ON "payment_history" USING btree ("processor_payment_id");
  CREATE INDEX "payment_history_subscription_idx" ON "payment_history" USING btree ("subscription_id");
  CREATE INDEX "payment_history_updated_at_idx" ON "payment_history" USING btree ("updated_at");
  CREATE INDEX "payment_history_created_at_idx" ON "payment_history" USING btree ("created_at");
  CREATE UNIQUE INDEX "processor_events_event_id_idx" ON "processor_events" USING btree ("event_id");
  CREATE INDEX "processor_events_type_idx" ON "processor_events" USING btree ("type");
  CREATE INDEX "processor_events_status_idx" ON "processor_events" USING btree ("status");
  CREATE INDEX "processor_events_object_id_idx" ON "processor_events" USING btree ("object_id");
  CREATE INDEX "processor_events_updated_at_idx" ON "processor_events" USING btree ("updated_at");
  CREATE INDEX "processor_events_created_at_idx" ON "processor_events" USING btree ("created_at");
  CREATE INDEX "analytics_events_name_idx" ON "analytics_events" USING btree ("name");
  CREATE INDEX "analytics_events_user_idx" ON "analytics_events" USING btree ("user_id");
  CREATE INDEX "analytics_events_updated_at_idx" ON "analytics_events" USING btree ("updated_at");
  CREATE INDEX "analytics_events_created_at_idx" ON "analytics_events" USING btree ("created_at");
  CREATE UNIQUE INDEX "name_sourceEventId_idx" ON "analytics_events" USING btree ("name","source_event_id");
  CREATE INDEX "payload_jobs_log_order_idx" ON "payload_jobs_log" USING btree ("_order");
  CREATE INDEX "payload_jobs_log_parent_id_idx" ON "payload_jobs_log" USING btree ("_parent_id");
  CREATE INDEX "payload_jobs_completed_at_idx" ON "payload_jobs" USING btree ("completed_at");
  CREATE INDEX "payload_jobs_total_tried_idx" ON "payload_jobs" USING btree ("total_tried");
  CREATE INDEX "payload_jobs_has_error_idx" ON "payload_jobs" USING btree ("has_error");
  CREATE INDEX "payload_jobs_task_slug_idx" ON "payload_jobs" USING btree ("task_slug");
  CREATE INDEX "payload_jobs_queue_idx" ON "payload_jobs" USING btree ("queue");
  CREATE INDEX "payload_jobs_wait_until_idx" ON "payload_jobs" USING btree ("wait_until");
  CREATE INDEX "payload_jobs_processing_idx" ON "payload_jobs" USING btree ("processing");
  CREATE INDEX "payload_jobs_updated_at_idx" ON "payload_jobs" USING btree ("updated_at");
  CREATE INDEX "payload_jobs_created_at_idx" ON "payload_jobs" USING btree ("created_at");
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_licenses_fk" FOREIGN KEY ("licenses_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_audit_log_fk" FOREIGN KEY ("audit_log_id") REFERENCES "public"."audit_log"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_user_subscriptions_fk" FOREIGN KEY ("user_subscriptions_id") REFERENCES "public"."user_subscriptions"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_one_time_purchases_fk" FOREIGN KEY ("one_time_purchases_id") REFERENCES "public"."one_time_purchases"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_payment_history_fk" FOREIGN KEY ("payment_history_id") REFERENCES "public"."payment_history"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_processor_events_fk" FOREIGN KEY ("processor_events_id") REFERENCES "public"."processor_events"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_analytics_events_fk" FOREIGN KEY ("analytics_events_id") REFERENCES "public"."analytics_events"("id") ON DELETE cascade ON UPDATE no action;
  CREATE INDEX "payload_locked_documents_rels_licenses_id_idx" ON "payload_locked_documents_rels" USING btree ("licenses_id");
  CREATE INDEX "payload_locked_documents_rels_audit_log_id_idx" ON "payload_locked_documents_rels" USING btree ("audit_log_id");
  CREATE INDEX "payload_locked_documents_rels_user_subscriptions_id_idx" ON "payload_locked_documents_rels" USING btree ("user_subscriptions_id");
  CREATE INDEX "payload_locked_documents_rels_one_time_purchases_id_idx" ON "payload_locked_documents_rels" USING btree ("one_time_purchases_id");
  CREATE INDEX "payload_locked_documents_rels_payment_history_id_idx" ON "payload_locked_documents_rels" USING btree ("payment_history_id");
  CREATE INDEX "payload_locked_documents_rels_processor_events_id_idx" ON "payload_locked_documents_rels" USING btree ("processor_events_id");
  CREATE INDEX "payload_locked_documents_rels_analytics_events_id_idx" ON "payload_locked_documents_rels" USING btree ("analytics_events_id");`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "licenses" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "audit_log" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "user_subscriptions" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "one_time_purchases" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "payment_history" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "processor_events" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "analytics_events" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "payload_jobs_log" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "payload_jobs" DISABLE ROW LEVEL SECURITY;
  DROP TABLE "licenses" CASCADE;
  DROP TABLE "audit_log" CASCADE;
  DROP TABLE "user_subscriptions" CASCADE;
  DROP TABLE "one_time_purchases" CASCADE;
  DROP TABLE "payment_history" CASCADE;
  DROP TABLE "processor_events" CASCADE;
  DROP TABLE "analytics_events" CASCADE;
  DROP TABLE "payload_jobs_log" CASCADE;
  DROP TABLE "payload_jobs" CASCADE;
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_licenses_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_audit_log_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_user_subscriptions_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_one_time_purchases_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_payment_history_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_processor_events_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_analytics_events_fk";
  
  DROP INDEX "payload_locked_documents_rels_licenses_id_idx";
  DROP INDEX "payload_locked_documents_rels_audit_log_id_idx";
  DROP INDEX "payload_locked_documents_rels_user_subscriptions_id_idx";
  DROP INDEX "payload_locked_documents_rels_one_time_purchases_id_idx";
  DROP INDEX "payload_locked_documents_rels_payment_history_id_idx";
  DROP INDEX "payload_locked_documents_rels_processor_events_id_idx";
  DROP INDEX "payload_locked_documents_rels_analytics_events_id_idx";
  ALTER TABLE "users" DROP COLUMN "email_verified";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "licenses_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "audit_log_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "user_subscriptions_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "one_time_purchases_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "payment_history_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "processor_events_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "analytics_events_id";
  DROP TYPE "public"."enum_licenses_source";
  DROP TYPE "public"."enum_licenses_status";
  DROP TYPE "public"."enum_licenses_override";
  DROP TYPE "public"."enum_user_subscriptions_status";
  DROP TYPE "public"."enum_user_subscriptions_billing_cycle";
  DROP TYPE "public"."enum_user_subscriptions_dispute_status";
  DROP TYPE "public"."enum_one_time_purchases_status";
  DROP TYPE "public"."enum_one_time_purchases_dispute_status";
  DROP TYPE "public"."enum_payment_history_payment_type";
  DROP TYPE "public"."enum_payment_history_status";
  DROP TYPE "public"."enum_processor_events_status";
  DROP TYPE "public"."enum_payload_jobs_log_task_slug";
  DROP TYPE "public"."enum_payload_jobs_log_state";
  DROP TYPE "public"."enum_payload_jobs_task_slug";`)
}
