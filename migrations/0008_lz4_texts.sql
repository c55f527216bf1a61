-- The large texts of jobs (uploaded files, result documents) and of package files compress with
-- lz4 rather than pglz where the server was built with it (Debian's and the official images are):
-- pglz took about 0.6 ms of Postgres CPU per 67 KB result document, lz4 a third of that, at
-- nearly the same size. Without lz4 the columns keep the default.
DO $$
BEGIN
  ALTER TABLE "lockfile_job_results" ALTER COLUMN "document" SET COMPRESSION lz4;
  ALTER TABLE "lockfile_job_inputs" ALTER COLUMN "files" SET COMPRESSION lz4;
  ALTER TABLE "blob_texts" ALTER COLUMN "content" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available on this server: job and file texts keep the default compression';
END $$;
