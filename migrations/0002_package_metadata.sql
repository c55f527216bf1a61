CREATE TABLE "package_metadata" (
	"coordinate" text PRIMARY KEY NOT NULL,
	"metadata" jsonb NOT NULL,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "package_metadata_fetched_idx" ON "package_metadata" USING btree ("fetched_at");