/**
 * Errors of `fetchPublicImage`. Every message is one sentence for the API caller that names
 * the field and says what to fix; internal details (stack, resolver errors) stay out.
 */
export type ImageFetchErrorCode =
  | "unsafe_url"
  | "dns"
  | "network"
  | "http_status"
  | "too_many_redirects"
  | "too_large"
  | "timeout"
  | "bad_type";

/** Any refusal or failure of `fetchPublicImage`. */
export class ImageFetchError extends Error {
  constructor(
    readonly code: ImageFetchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ImageFetchError";
  }
}

/** The URL, or an address it resolves to, is not a public http(s) target. */
export class UnsafeUrlError extends ImageFetchError {
  constructor(message: string) {
    super("unsafe_url", message);
    this.name = "UnsafeUrlError";
  }
}

const REASON_LABEL: Record<string, string> = {
  unspecified: "an unspecified",
  loopback: "a loopback",
  private: "a private",
  cgnat: "a carrier-grade NAT",
  "link-local": "a link-local",
  metadata: "a cloud metadata",
  reserved: "a reserved",
  documentation: "a documentation-only",
  benchmarking: "a benchmarking-only",
  multicast: "a multicast",
  broadcast: "a broadcast",
  "unique-local": "a unique-local (private)",
  "site-local": "a site-local (private)",
  invalid: "an unusable",
};

/**
 * What to add when the refused target is loopback: a developer testing against a local server
 * learns the setting that allows it (never on in production: config.ts refuses it there).
 */
export const LOOPBACK_HINT =
  " (a development server started with ALLOW_LOOPBACK_URLS=1 may reach 127.0.0.1, ::1 and localhost)";

export function addressRefusal(field: string, verb: string, address: string, reason: string) {
  const label = REASON_LABEL[reason] ?? "a non-public";
  const hint = reason === "loopback" ? LOOPBACK_HINT : "";
  return new UnsafeUrlError(
    `${field} ${verb} ${label} address (${address}); give a public http(s) URL${hint}.`,
  );
}

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}

export function tooLargeError(field: string, maxBytes: number) {
  return new ImageFetchError(
    "too_large",
    `${field} is larger than ${megabytes(maxBytes)}; give a smaller image.`,
  );
}

const TYPE_NAMES: Record<string, string> = {
  "image/jpeg": "JPEG",
  "image/png": "PNG",
  "image/webp": "WebP",
};

export function badTypeError(field: string, allowed: readonly string[]) {
  const names = allowed.map((t) => TYPE_NAMES[t] ?? t);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names[0];
  return new ImageFetchError(
    "bad_type",
    `${field} is not a ${list} image; give a URL to one of those.`,
  );
}
