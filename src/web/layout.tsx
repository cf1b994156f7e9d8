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
button.pay{background:#1c1917;color:#fff}
`;

export function Page(props: {
  title: string;
  testMode?: boolean;
  refreshSec?: number;
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
        <style>{CSS}</style>
      </head>
      <body>
        {props.testMode ? (
          <div class="test" role="alert">
            TEST MODE — no real money. This checkout is kinora's built-in test page.
          </div>
        ) : null}
        <main>{props.children}</main>
      </body>
    </html>
  );
}

/** Pages carry no scripts and may only post forms back to kinora. */
export const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
} as const;
