/**
 * GET /docs: the interactive API reference (Swagger UI), served entirely from the installed
 * `swagger-ui-dist` package — no CDN, so it works on a machine without internet. The page
 * loads only same-origin scripts and styles (a strict Content-Security-Policy).
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { ApiError } from "../../domain/errors.js";
import { errorJson } from "../errors.js";
import type { Router } from "../router.js";

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>kinora API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#reference",
  deepLinking: true, tryItOutEnabled: false, defaultModelsExpandDepth: 0 });`;

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

function assetDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve("swagger-ui-dist/package.json"));
}

export function registerDocs(app: Router) {
  const cache = new Map<string, Buffer>();
  app.get("/docs", (c) => c.html(PAGE, 200, { "Content-Security-Policy": CSP }));
  app.get("/docs/assets/:name", async (c) => {
    const name = c.req.param("name");
    if (name === "init.js") {
      return c.body(INIT, 200, { "Content-Type": "text/javascript; charset=utf-8" });
    }
    const type = ASSETS[name];
    if (!type) return errorJson(c, new ApiError("not_found", `No documentation asset ${name}.`));
    let body = cache.get(name);
    if (!body) {
      body = await readFile(path.join(assetDir(), name));
      cache.set(name, body);
    }
    return c.body(new Uint8Array(body), 200, {
      "Content-Type": type,
      "Cache-Control": "public, max-age=86400",
    });
  });
}
