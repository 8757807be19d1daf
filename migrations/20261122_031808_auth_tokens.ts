import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_auth_tokens_purpose" AS ENUM('magic_link', 'verify_email');
  ALTER TYPE "public"."enum_payload_jobs_log_task_slug" ADD VALUE 'sendEmail' BEFORE 'sendLicenseEmail';
  ALTER TYPE "public"."enum_payload_jobs_task_slug" ADD VALUE 'sendEmail' BEFORE 'sendLicenseEmail';
  CREATE TABLE "auth_tokens" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"token_hash" varchar NOT NULL,
  	"purpose" "enum_auth_tokens_purpose" NOT NULL,
  	"email" varchar NOT NULL,
  	"user_id" integer,
  	"next" varchar,
  	"expires_at" timestamp(3) with time zone NOT NULL,
  	"consumed_at" timestamp(3) with time zone,
  	"superseded_at" timestamp(3) with time zone,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "auth_tokens_id" integer;
  ALTER TABLE "auth_tokens" ADD CONSTRAINT "auth_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  CREATE UNIQUE INDEX "auth_tokens_token_hash_idx" ON "auth_tokens" USING btree ("token_hash");
  CREATE INDEX "auth_tokens_user_idx" ON "auth_tokens" USING btree ("user_id");
  CREATE INDEX "auth_tokens_updated_at_idx" ON "auth_tokens" USING btree ("updated_at");
  CREATE INDEX "auth_tokens_created_at_idx" ON "auth_tokens" USING btree ("created_at");
  CREATE INDEX "email_purpose_idx" ON "auth_tokens" USING btree ("email","purpose");
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_auth_tokens_fk" FOREIGN KEY ("auth_tokens_id") REFERENCES "public"."auth_tokens"("id") ON DELETE cascade ON UPDATE no action;
  CREATE INDEX "payload_locked_documents_rels_auth_tokens_id_idx" ON "payload_locked_documents_rels" USING btree ("auth_tokens_id");`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "auth_tokens" DISABLE ROW LEVEL SECURITY;
  DROP TABLE "auth_tokens" CASCADE;
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_auth_tokens_fk";
  
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_log_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_log_task_slug" AS ENUM('inline', 'sendLicenseEmail', 'withdrawRepoAccess');
  ALTER TABLE "payload_jobs_log" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_log_task_slug" USING "task_slug"::"public"."enum_payload_jobs_log_task_slug";
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE text;
  DROP TYPE "public"."enum_payload_jobs_task_slug";
  CREATE TYPE "public"."enum_payload_jobs_task_slug" AS ENUM('inline', 'sendLicenseEmail', 'withdrawRepoAccess');
  ALTER TABLE "payload_jobs" ALTER COLUMN "task_slug" SET DATA TYPE "public"."enum_payload_jobs_task_slug" USING "task_slug"::"public"."enum_payload_jobs_task_slug";
  DROP INDEX "payload_locked_documents_rels_auth_tokens_id_idx";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "auth_tokens_id";
  DROP TYPE "public"."enum_auth_tokens_purpose";`)
}
