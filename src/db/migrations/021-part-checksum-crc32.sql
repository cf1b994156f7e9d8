-- Parts may carry a CRC32 (S3's x-amz-checksum-crc32) as well as SHA-256 or MD5: the default
-- for a caller's parts (UPLOAD_PART_CHECKSUM), cheaper than SHA-256 on both ends. Open uploads
-- keep the algorithm they were planned with.
ALTER TABLE multipart_uploads DROP CONSTRAINT multipart_uploads_checksum_algorithm_check;
ALTER TABLE multipart_uploads ADD CONSTRAINT multipart_uploads_checksum_algorithm_check
  CHECK (checksum_algorithm IN ('crc32', 'sha256', 'md5'));
