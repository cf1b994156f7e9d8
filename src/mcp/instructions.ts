/**
 * What the server tells a connected assistant at `initialize`: ask before spending unless the
 * owner already agreed (a real setting of the calling key, `ask_before_spending`), the restore
 * and clip flows step by step, the content rule and retention.
 */
import { displayCents } from "../domain/money.js";
import type { Principal } from "../services/auth.js";

function agreement(principal: Principal): string {
  const key = principal.snapshot?.key;
  if (!key) return "";
  const remaining = Math.max(0, key.limitCents - key.spentCents);
  const balance = principal.snapshot?.balanceCents ?? 0;
  const left = `This key may still spend ${displayCents(Math.min(remaining, balance))} (limit ${displayCents(key.limitCents)}, ${displayCents(key.spentCents)} spent; wallet balance ${displayCents(balance)}).`;
  return key.askBeforeSpending
    ? `The owner has NOT agreed in advance: before every spending tool (create_restore, make_clip, create_top_up_link, top_up_with_usdc), state the price (get_prices / quote_restore) and get the owner's explicit agreement. create_restore and make_clip spend only with max_price_cents (the most the owner agreed to), or after the owner answers the confirmation form this server sends to a client that supports elicitation; otherwise they answer agreement_required with the price and the question to ask. ${left}`
    : `The owner has agreed in advance to spending within this key's limit without being asked each time; still state what each purchase cost afterwards. max_price_cents on create_restore and make_clip refuses anything dearer than the owner expects. ${left}`;
}

export function instructionsFor(principal: Principal): string {
  return [
    "kinora restores old videos in the cloud and turns one still image plus a prompt into a 5-second clip with sound, paid from a prepaid wallet in US cents.",
    agreement(principal),
    "Restore: quote_restore (free) → tell the price → create_restore (charged now; returns upload_url and upload_headers) → PUT the video file to upload_url with exactly upload_headers → start_restore → get_restore with wait_seconds until status is done → give the owner download_url. Or give create_restore a public video_url instead: nothing to upload or start. wait_seconds holds the answer until the status changes (until: 'progress' to be answered at each progress report; a progressToken gets progress notifications meanwhile). A video much longer than declared is refused and refunded; a shorter one is charged its measured length. list_restores finds a lost job id.",
    "Clip: get_prices (free; $0.59 at 480p, $0.99 at 720p) → tell the price → make_clip with image_url (starts at once) or with content_type (then PUT the image to upload_url with upload_headers and call start_clip) → get_clip with wait_seconds until done → give the owner video_url.",
    "While a job waits or runs, its `queue` field gives position (0 = running now) and eta_seconds, an estimate from recent run times: tell the owner how long it should take instead of polling blindly.",
    "Content rule for clips: no sexual or nude content, and nothing sexual or suggestive involving a minor. A prompt that breaks it is refused and nothing is charged; an image that breaks it ends the clip refused and refunded.",
    "Failed, refused and cancelled jobs are refunded at once, to the balance and this key's allowance. cancel_job cancels a restore not yet started or a clip whose image never arrived. Uploaded videos, images and results are deleted automatically (typically within 48 hours): download results promptly.",
    "When the balance does not cover a price (needs_topup), create_top_up_link gives the owner a card checkout link; top_up_with_usdc pays in USDC over x402. When this key's limit does not cover it (over_limit), only the owner can raise it.",
  ]
    .filter(Boolean)
    .join("\n\n");
}
