-- Uploads in parts (issue 36): a large file is sent as parts to the store (S3's multipart upload,
-- or the local store's equivalent) and joined there. One row per upload: the object it makes, the
-- store's upload id, the plan, and what became of it. One row per part that arrived whole: kinora's
-- own record of the parts (not every S3-compatible store answers ListParts), read by a resumer.
CREATE TABLE multipart_uploads (
  id text PRIMARY KEY,
  object_key text NOT NULL,
  store_upload_id text NOT NULL,
  content_type text NOT NULL,
  size_bytes bigint NOT NULL CHECK (size_bytes > 0),
  part_size_bytes bigint NOT NULL CHECK (part_size_bytes > 0),
  part_count integer NOT NULL CHECK (part_count BETWEEN 1 AND 10000),
  checksum_algorithm text NOT NULL CHECK (checksum_algorithm IN ('sha256', 'md5')),
  status text NOT NULL CHECK (status IN ('open', 'completing', 'completed', 'aborted')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  completed_at timestamptz,
  aborted_at timestamptz,
  abort_reason text,
  -- S3 may keep a part that was still arriving when the upload was aborted: the sweeper aborts
  -- once more a while later, and notes it here.
  abort_confirmed_at timestamptz
);

-- One unfinished upload per object: a resumer finds it by the object's key.
CREATE UNIQUE INDEX multipart_uploads_one_open ON multipart_uploads (object_key)
  WHERE status IN ('open', 'completing');

CREATE INDEX multipart_uploads_open_expiry ON multipart_uploads (expires_at)
  WHERE status IN ('open', 'completing');

CREATE INDEX multipart_uploads_by_key ON multipart_uploads (object_key, created_at);

CREATE TABLE multipart_upload_parts (
  upload_id text NOT NULL REFERENCES multipart_uploads (id) ON DELETE CASCADE,
  part_number integer NOT NULL CHECK (part_number BETWEEN 1 AND 10000),
  size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
  etag text NOT NULL,
  checksum text NOT NULL,
  received_at timestamptz NOT NULL,
  PRIMARY KEY (upload_id, part_number)
);
