/** The frame of kinora's few server-rendered pages: plain HTML, inline CSS, no scripts. */
import type { Child } from "hono/jsx";

const CSS = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f5f4;color:#1c1917}
main{max-width:32rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px #0002}
.test{background:#facc15;color:#1c1917;font-weight:700;text-align:center;padding:.6rem;letter-spacing:.03em}
.amount{font-size:2.2rem;font-weight:700;margin:.5rem 0}
.muted{color:#57534e;font-size:.9rem}
form{display:inline}
button{font:inherit;padding:.6rem 1.4rem;border-radius:8px;border:1px solid #1c1917;cursor:pointer;margin-right:.5rem}
button.pay,a.pay{background:#1c1917;color:#fff}
a.button{display:inline-block;text-decoration:none;padding:.6rem 1.4rem;border-radius:8px;border:1px solid #1c1917}
label{display:block;font-weight:600;margin:.8rem 0 .2rem}
fieldset label{display:inline;font-weight:400}
fieldset{border:1px solid #d6d3d1;border-radius:8px;margin:1rem 0}
input[type=password],input[type=text],input[type=url],input[inputmode]{font:inherit;padding:.5rem;border:1px solid #a8a29e;border-radius:6px;width:14rem}
.host{font-size:1.25rem;background:#fef3c7;padding:.6rem;border-radius:8px}
.error{color:#b91c1c;font-weight:600}
.secret{display:block;word-break:break-all;background:#1c1917;color:#fef3c7;padding:.8rem;border-radius:8px}
table{border-collapse:collapse;width:100%;font-size:.9rem;margin:.5rem 0}
td,th{border-bottom:1px solid #e7e5e4;padding:.35rem .4rem;text-align:left;vertical-align:top}
th{font-size:.8rem;color:#57534e}
main{overflow-wrap:break-word}
code,.secret,.endpoint h4{overflow-wrap:anywhere}
main.wide{max-width:60rem}
main.full{max-width:none;margin:1rem}
.pair{display:flex;gap:1rem;overflow-x:auto;align-items:flex-start}
.pair figure{margin:0;flex:none}
.pair figcaption{font-weight:600}
.pair img,.wipe img{display:block;max-width:none}
.scroll{overflow:auto;max-width:100%}
.wipe{position:relative}
.wipe-before{position:absolute;top:0;left:0;bottom:0;width:50%;min-width:1rem;max-width:100%;overflow:hidden;resize:horizontal;border-right:3px solid #facc15}
nav a{margin-right:1rem;display:inline-block}
h1,h2,h3{line-height:1.2}
.sr{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.ok{color:#166534;font-weight:600}
.signout{float:right}
.state{font-weight:600}
tr.revoked td{color:#78716c}
input.short{width:5rem}
details summary{cursor:pointer;color:#1d4ed8;font-size:.85rem}
.still{margin:.4rem 0 0}
.still img{display:block;width:100%;max-width:20rem;height:auto;border-radius:4px}
.chart{display:block;width:100%;height:auto;max-height:14rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;vertical-align:middle}
progress{width:6rem;vertical-align:middle}
@media (max-width:40rem){
main{margin:0;padding:1rem;border-radius:0;box-shadow:none}
input[type=password],input[type=text],input[type=url]{width:100%;box-sizing:border-box}
button,a.button{margin:.3rem .3rem .3rem 0}
table thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table,tbody,tr,td,th{display:block}
tr{border-bottom:2px solid #d6d3d1;padding:.4rem 0}
td{border:0;padding:.1rem 0}
td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:#57534e}
.signout{float:none}
}
`;

export function Page(props: {
  title: string;
  testMode?: boolean;
  refreshSec?: number;
  wide?: boolean;
  /** As wide as the window: pictures shown at their own size. */
  full?: boolean;
  children: Child;
}) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        {props.refreshSec ? <meta http-equiv="refresh" content={String(props.refreshSec)} /> : null}
        <title>{props.title} · kinora</title>
        {/* A constant: raw, so the quotes of its `content` strings are not escaped. */}
        <style dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>
        {props.testMode ? (
          <div class="test" role="alert">
            TEST MODE — no real money. This checkout is kinora's built-in test page.
          </div>
        ) : null}
        <main class={props.full ? "full" : props.wide ? "wide" : undefined}>{props.children}</main>
      </body>
    </html>
  );
}

/** Pages carry no scripts and may only post forms back to kinora. */
/**
 * The wallet key field of every sign-in form (the console's, the consent page's): a password
 * input, never filled in by the browser, that the form posts as `wallet_key`.
 */
export function WalletKeyField() {
  return (
    <>
      <label for="wallet_key">Wallet key</label>
      <input
        id="wallet_key"
        name="wallet_key"
        type="password"
        autocomplete="off"
        placeholder="pmk_…"
        required
      />
    </>
  );
}

export const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
} as const;

/**
 * Headers of pages that take a decision (consent, console): no framing (no clickjacking of
 * "Allow"), no scripts, forms only to kinora — and, on the consent page, to where the app
 * returns (browsers apply form-action to the redirect that follows the form).
 */
export function decisionPageHeaders(
  formTargets: string[] = [],
  opts: { images?: readonly string[] } = {},
) {
  const targets = ["'self'", ...formTargets].join(" ");
  // The console shows a job's pictures through its own links, which lead (a redirect) to the
  // expiring storage links the pictures operation gives: kinora's, and where those are stored.
  const images = opts.images ? ` img-src ${["'self'", ...opts.images].join(" ")};` : "";
  return {
    ...PAGE_HEADERS,
    "content-security-policy": `default-src 'none';${images} style-src 'unsafe-inline'; form-action ${targets}; frame-ancestors 'none'; base-uri 'none'`,
    "x-frame-options": "DENY",
  };
}
