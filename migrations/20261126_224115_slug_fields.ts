import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "templates" ADD COLUMN "generate_slug" boolean DEFAULT true;
  ALTER TABLE "posts" ADD COLUMN "generate_slug" boolean DEFAULT true;
  ALTER TABLE "_posts_v" ADD COLUMN "version_generate_slug" boolean DEFAULT true;
  ALTER TABLE "changelog_entries" ADD COLUMN "generate_slug" boolean DEFAULT true;
  ALTER TABLE "_changelog_entries_v" ADD COLUMN "version_generate_slug" boolean DEFAULT true;`)
  // Entries that exist keep the slug they have (published, linked to): only new ones get one generated.
  await db.execute(sql`
   UPDATE "templates" SET "generate_slug" = false;
  UPDATE "posts" SET "generate_slug" = false;
  UPDATE "_posts_v" SET "version_generate_slug" = false;
  UPDATE "changelog_entries" SET "generate_slug" = false;
  UPDATE "_changelog_entries_v" SET "version_generate_slug" = false;`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "templates" DROP COLUMN "generate_slug";
  ALTER TABLE "posts" DROP COLUMN "generate_slug";
  ALTER TABLE "_posts_v" DROP COLUMN "version_generate_slug";
  ALTER TABLE "changelog_entries" DROP COLUMN "generate_slug";
  ALTER TABLE "_changelog_entries_v" DROP COLUMN "version_generate_slug";`)
}
