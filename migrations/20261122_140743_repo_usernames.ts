import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TABLE "repo_usernames" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"username_key" varchar NOT NULL,
  	"user_id" integer NOT NULL,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "repo_usernames_id" integer;
  ALTER TABLE "repo_usernames" ADD CONSTRAINT "repo_usernames_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  CREATE UNIQUE INDEX "repo_usernames_username_key_idx" ON "repo_usernames" USING btree ("username_key");
  CREATE INDEX "repo_usernames_user_idx" ON "repo_usernames" USING btree ("user_id");
  CREATE INDEX "repo_usernames_updated_at_idx" ON "repo_usernames" USING btree ("updated_at");
  CREATE INDEX "repo_usernames_created_at_idx" ON "repo_usernames" USING btree ("created_at");
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_repo_usernames_fk" FOREIGN KEY ("repo_usernames_id") REFERENCES "public"."repo_usernames"("id") ON DELETE cascade ON UPDATE no action;
  CREATE INDEX "payload_locked_documents_rels_repo_usernames_id_idx" ON "payload_locked_documents_rels" USING btree ("repo_usernames_id");`)
  // Hand-written: every username that has access today is claimed by its account (the oldest request wins a duplicate).
  await db.execute(sql`
   INSERT INTO "repo_usernames" ("username_key", "user_id")
   SELECT lower("username"), "user_id" FROM "repo_access"
   WHERE "status" <> 'revoked' AND "user_id" IS NOT NULL
   ORDER BY "created_at"
   ON CONFLICT ("username_key") DO NOTHING;`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "repo_usernames" DISABLE ROW LEVEL SECURITY;
  DROP TABLE "repo_usernames" CASCADE;
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_repo_usernames_fk";
  
  DROP INDEX "payload_locked_documents_rels_repo_usernames_id_idx";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "repo_usernames_id";`)
}
