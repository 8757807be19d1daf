import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_templates_category" AS ENUM('dashboard', 'marketing', 'auth', 'billing', 'email');
  CREATE TYPE "public"."enum_support_requests_priority" AS ENUM('high', 'normal');
  CREATE TYPE "public"."enum_support_requests_status" AS ENUM('open', 'answered', 'closed');
  ALTER TYPE "public"."enum_payload_jobs_log_task_slug" ADD VALUE 'sendSupportReply' BEFORE 'reapStuckJobs';
  ALTER TYPE "public"."enum_payload_jobs_task_slug" ADD VALUE 'sendSupportReply' BEFORE 'reapStuckJobs';
  CREATE TABLE "templates" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"name" varchar NOT NULL,
  	"slug" varchar NOT NULL,
  	"description" varchar,
  	"category" "enum_templates_category" NOT NULL,
  	"preview_id" integer,
  	"published_at" timestamp(3) with time zone,
  	"download_count" numeric DEFAULT 0,
  	"prefix" varchar DEFAULT 'templates',
  	"_objectkey" varchar,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"url" varchar,
  	"thumbnail_u_r_l" varchar,
  	"filename" varchar,
  	"mime_type" varchar,
  	"filesize" numeric,
  	"width" numeric,
  	"height" numeric
  );
  
  CREATE TABLE "template_downloads" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"user_id" integer NOT NULL,
  	"template_id" integer NOT NULL,
  	"license_id" integer,
  	"client_address" varchar,
  	"user_agent" varchar,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "support_requests" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"subject" varchar NOT NULL,
  	"message" varchar NOT NULL,
  	"priority" "enum_support_requests_priority" DEFAULT 'normal' NOT NULL,
  	"status" "enum_support_requests_status" DEFAULT 'open' NOT NULL,
  	"user_id" integer NOT NULL,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "support_replies" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"request_id" integer NOT NULL,
  	"body" varchar NOT NULL,
  	"from_staff" boolean DEFAULT false,
  	"author_id" integer,
  	"customer_id" integer,
  	"emailed_at" timestamp(3) with time zone,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "templates_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "template_downloads_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "support_requests_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "support_replies_id" integer;
  ALTER TABLE "templates" ADD CONSTRAINT "templates_preview_id_media_id_fk" FOREIGN KEY ("preview_id") REFERENCES "public"."media"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "template_downloads" ADD CONSTRAINT "template_downloads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "template_downloads" ADD CONSTRAINT "template_downloads_template_id_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."templates"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "template_downloads" ADD CONSTRAINT "template_downloads_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "support_requests" ADD CONSTRAINT "support_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "support_replies" ADD CONSTRAINT "support_replies_request_id_support_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."support_requests"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "support_replies" ADD CONSTRAINT "support_replies_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "support_replies" ADD CONSTRAINT "support_replies_customer_id_users_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  CREATE UNIQUE INDEX "templates_slug_idx" ON "templates" USING btree ("slug");
  CREATE INDEX "templates_category_idx" ON "templates" USING btree ("category");
  CREATE INDEX "templates_preview_idx" ON "templates" USING btree ("preview_id");
  CREATE INDEX "templates_published_at_idx" ON "templates" USING btree ("published_at");
  CREATE INDEX "templates_updated_at_idx" ON "templates" USING btree ("updated_at");
  CREATE INDEX "templates_created_at_idx" ON "templates" USING btree ("created_at");
  CREATE UNIQUE INDEX "templates_filename_idx" ON "templates" USING btree ("filename");
  CREATE INDEX "template_downloads_user_idx" ON "template_downloads" USING btree ("user_id");
  CREATE INDEX "template_downloads_template_idx" ON "template_downloads" USING btree ("template_id");
  CREATE INDEX "template_downloads_license_idx" ON "template_downloads" USING btree ("license_id");
  CREATE INDEX "template_downloads_updated_at_idx" ON "template_downloads" USING btree ("updated_at");
  CREATE INDEX "template_downloads_created_at_idx" ON "template_downloads" USING btree ("created_at");
  CREATE INDEX "support_requests_priority_idx" ON "support_requests" USING btree ("priority");
  CREATE INDEX "support_requests_status_idx" ON "support_requests" USING btree ("status");
  CREATE INDEX "support_requests_user_idx" ON "support_requests" USING btree ("user_id");
  CREATE INDEX "support_requests_updated_at_idx" ON "support_requests" USING btree ("updated_at");
  CREATE INDEX "support_requests_created_at_idx" ON "support_requests" USING btree ("created_at");
  CREATE INDEX "support_replies_request_idx" ON "support_replies" USING btree ("request_id");
  CREATE INDEX "support_replies_author_idx" ON "support_replies" USING btree ("author_id");
  CREATE INDEX "support_replies_customer_idx" ON "support_replies" USING btree ("customer_id");
  CREATE INDEX "support_replies_updated_at_idx" ON "support_replies" USING btree ("updated_at");
  CREATE INDEX "support_replies_created_at_idx" ON "support_replies" USING btree ("created_at");
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_templates_fk" FOREIGN KEY ("templates_id") REFERENCES "public"."templates"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_template_downloads_fk" FOREIGN KEY ("template_downloads_id") REFERENCES "public"."template_downloads"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_support_requests_fk" FOREIGN KEY ("support_requests_id") REFERENCES "public"."support_requests"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_support_replies_fk" FOREIGN KEY ("support_replies_id") REFERENCES "public"."support_replies"("id") ON DELETE cascade ON UPDATE no action;
  CREATE INDEX "payload_locked_documents_rels_templates_id_idx" ON "payload_locked_documents_rels" USING btree ("templates_id");
  CREATE INDEX "payload_locked_documents_rels_template_downloads_id_idx" ON "payload_locked_documents_rels" USING btree ("template_downloads_id");
  CREATE INDEX "payload_locked_documents_rels_support_requests_id_idx" ON "payload_locked_documents_rels" USING btree ("support_requests_id");
  CREATE INDEX "payload_locked_documents_rels_support_replies_id_idx" ON "payload_locked_documents_rels" USING btree ("support_replies_id");`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "templates" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "template_downloads" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "support_requests" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "support_replies" DISABLE ROW LEVEL SECURITY;
  DROP TABLE "templates" CASCADE;
  DROP TABLE "template_downloads" CASCADE;
  DROP TABLE "support_requests" CASCADE;
  DROP TABLE "support_replies" CASCADE;
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_templates_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_template_downloads_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_support_requests_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_support_replies_fk";
  
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_log_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_log_task_slug" AS ENUM('inline', 'sendEmail', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'reapStuckJobs');
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_log_task_slug" USING "task_slug"::"public"."enum_payload_jobs_log_task_slug";
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_task_slug" AS ENUM('inline', 'sendEmail', 'sendLicenseEmail', 'expireLapsedLicenses', 'withdrawRepoAccess', 'reapStuckJobs');
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_task_slug" USING "task_slug"::"public"."enum_payload_jobs_task_slug";
  DROP INDEX "payload_locked_documents_rels_templates_id_idx";
  DROP INDEX "payload_locked_documents_rels_template_downloads_id_idx";
  DROP INDEX "payload_locked_documents_rels_support_requests_id_idx";
  DROP INDEX "payload_locked_documents_rels_support_replies_id_idx";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "templates_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "template_downloads_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "support_requests_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "support_replies_id";
  DROP TYPE "public"."enum_templates_category";
  DROP TYPE "public"."enum_support_requests_priority";
  DROP TYPE "public"."enum_support_requests_status";`)
}
