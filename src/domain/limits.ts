/** Limits the spec fixes, in one place so routes, services, config and docs agree. */
export const AGENT_KEY_LIMIT_CENTS = { min: 1, max: 100_000 } as const;
/** The range of a card top-up, in cents. */
export const CARD_TOPUP_CENTS = { min: 500, max: 20_000 } as const;
/** The range of a USDC top-up, in cents. */
export const USDC_TOPUP_CENTS = { min: 100, max: 20_000 } as const;
/** The longest e-mail address accepted. */
export const EMAIL_MAX_LENGTH = 254;
/** The longest agent key label. */
export const LABEL_MAX_LENGTH = 100;
/** JSON request bodies are small; uploads go to storage URLs, never through JSON. */
export const JSON_BODY_MAX_BYTES = 64 * 1024;
/**
 * The deepest nesting of objects and arrays any input may have (REST bodies, MCP arguments, the
 * worker's and OAuth registration's JSON): far above any real input, far below what a walk
 * over it could trip on.
 */
export const INPUT_MAX_DEPTH = 64;
/** A page of restore jobs (GET /cloud/jobs): limit bounds and the default. */
export const RESTORE_LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;
