/** What an assistant is told about restores at `initialize` (the MCP instructions), step by step. */

/** The restore flow in the tools' names. */
export const RESTORE_INSTRUCTIONS =
  "Restore (old videos restored in the cloud): quote_restore (free) → tell the price → create_restore (charged now; returns upload_url and upload_headers) → PUT the video file to upload_url with exactly upload_headers → start_restore → get_restore with wait_seconds until status is done → give the owner download_url. Or give create_restore a public video_url instead: nothing to upload or start. wait_seconds holds the answer until the status changes (until: 'progress' to be answered at each progress report; a progressToken gets progress notifications meanwhile). A video much longer than declared is refused and refunded; a shorter one is charged its measured length. A restore can be cancelled until it starts. list_restores finds a lost job id.";
