-- RPD schema v2: the layout older rpd_tracer builds write (no domain and
-- category columns, api args interned in rocpd_string, rocpd_op with a
-- completionSignal column).  Used by `rpd-synth --schema 2` and
-- `rpd-schema --create --schema 2` to make v2 test traces.
CREATE TABLE IF NOT EXISTS "rocpd_metadata" (
  "id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
  "tag" varchar(4096) NOT NULL,
  "value" varchar(4096) NOT NULL);
CREATE TABLE IF NOT EXISTS "rocpd_string" (
  "id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
  "string" varchar(4096) NOT NULL);
CREATE TABLE IF NOT EXISTS "rocpd_api" (
  "id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
  "pid" integer NOT NULL,
  "tid" integer NOT NULL,
  "start" integer NOT NULL,
  "end" integer NOT NULL,
  "apiName_id" integer NOT NULL,
  "args_id" integer NOT NULL);
CREATE TABLE IF NOT EXISTS "rocpd_copyapi" (
  "api_ptr_id" integer NOT NULL PRIMARY KEY,
  "stream" varchar(18) NOT NULL,
  "size" integer NOT NULL,
  "width" integer NOT NULL,
  "height" integer NOT NULL,
  "kind" integer NOT NULL,
  "dst" varchar(18) NOT NULL,
  "src" varchar(18) NOT NULL,
  "dstDevice" integer NOT NULL,
  "srcDevice" integer NOT NULL,
  "sync" bool NOT NULL,
  "pinned" bool NOT NULL);
CREATE TABLE IF NOT EXISTS "rocpd_kernelapi" (
  "api_ptr_id" integer NOT NULL PRIMARY KEY,
  "stream" varchar(18) NOT NULL,
  "gridX" integer NOT NULL,
  "gridY" integer NOT NULL,
  "gridZ" integer NOT NULL,
  "workgroupX" integer NOT NULL,
  "workgroupY" integer NOT NULL,
  "workgroupZ" integer NOT NULL,
  "groupSegmentSize" integer NOT NULL,
  "privateSegmentSize" integer NOT NULL,
  "kernelName_id" integer NOT NULL);
CREATE TABLE IF NOT EXISTS "rocpd_op" (
  "id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
  "gpuId" integer NOT NULL,
  "queueId" integer NOT NULL,
  "sequenceId" integer NOT NULL,
  "completionSignal" varchar(18) NOT NULL,
  "start" integer NOT NULL,
  "end" integer NOT NULL,
  "description_id" integer NOT NULL,
  "opType_id" integer NOT NULL);
CREATE TABLE IF NOT EXISTS "rocpd_api_ops" (
  "id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
  "api_id" integer NOT NULL,
  "op_id" integer NOT NULL);
CREATE TABLE IF NOT EXISTS "rocpd_monitor" (
  "id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
  "deviceType" varchar(16) NOT NULL,
  "deviceId" integer NOT NULL,
  "monitorType" varchar(16) NOT NULL,
  "start" integer NOT NULL,
  "end" integer NOT NULL,
  "value" varchar(255) NOT NULL);

CREATE INDEX IF NOT EXISTS "rocpd_strin_string_c7b9cd_idx" ON "rocpd_string" ("string");

INSERT INTO "rocpd_metadata" ("tag", "value") VALUES ('schema_version', '2');
