CREATE TABLE "lockfile_job_inputs" (
	"job_id" uuid PRIMARY KEY NOT NULL,
	"files" jsonb NOT NULL,
	"total_bytes" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lockfile_job_results" (
	"job_id" uuid PRIMARY KEY NOT NULL,
	"media_type" text NOT NULL,
	"document" text NOT NULL,
	"byte_size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lockfile_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"format" text NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"phase" text DEFAULT 'queued' NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"revision" integer DEFAULT 0 NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"error" text,
	"parser_contract" text NOT NULL,
	"idempotency_key" text,
	"request_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "lockfile_jobs_state_check" CHECK ("lockfile_jobs"."state" IN ('queued', 'running', 'succeeded', 'failed')),
	CONSTRAINT "lockfile_jobs_phase_check" CHECK ("lockfile_jobs"."phase" IN ('queued', 'resolving', 'enriching', 'rendering', 'succeeded', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "lockfile_job_inputs" ADD CONSTRAINT "lockfile_job_inputs_job_id_lockfile_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."lockfile_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lockfile_job_results" ADD CONSTRAINT "lockfile_job_results_job_id_lockfile_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."lockfile_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lockfile_jobs" ADD CONSTRAINT "lockfile_jobs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "lockfile_jobs_idempotency_idx" ON "lockfile_jobs" USING btree ("account_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "lockfile_jobs_expires_idx" ON "lockfile_jobs" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "lockfile_jobs_active_idx" ON "lockfile_jobs" USING btree ("updated_at") WHERE "lockfile_jobs"."state" IN ('queued', 'running');