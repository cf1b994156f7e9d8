/** What an assistant is told about previews at `initialize`. */
export const PREVIEW_INSTRUCTIONS =
  "Preview (free, before paying for a restore): preview_restore with video_url → preview_restore with job_id and wait_seconds until done → show each quality's pair_url (before|after) and words, so the person picks a quality before buying its restore. Uploads: POST /preview/jobs over REST.";
