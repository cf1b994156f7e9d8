/**
 * What the client commands take from the environment — none of the server's settings, so a
 * stray PORT=abc in a person's shell cannot break `kinora wallet`. main.ts hands process.env
 * in; nothing here reads it, and nothing here loads the server's zod-parsed config.
 */
import path from "node:path";

/** The environment variables the client reads, read once. */
export interface ClientEnv {
  /** KINORA_SERVER: overrides the server stored by `kinora login`. */
  server: string | undefined;
  /** KINORA_KEY: overrides the key stored by `kinora login`. */
  key: string | undefined;
  /** Where `kinora/config.json` lives: $XDG_CONFIG_HOME, else ~/.config. */
  configHome: string;
  /** ADMIN_TOKEN: the operator's token, sent only by `kinora admin`. */
  adminToken: string | undefined;
  /** KINORA_DEBUG=1: an unexpected error prints its stack too (for a bug report). */
  debug: boolean;
}

/** The client's view of an environment; empty values count as unset, as in the server config. */
export function clientEnv(env: Readonly<Record<string, string | undefined>>): ClientEnv {
  const get = (name: string) => (env[name] === "" ? undefined : env[name]);
  const home = get("HOME") ?? get("USERPROFILE") ?? ".";
  return {
    server: get("KINORA_SERVER"),
    key: get("KINORA_KEY"),
    configHome: get("XDG_CONFIG_HOME") ?? path.join(home, ".config"),
    adminToken: get("ADMIN_TOKEN"),
    debug: get("KINORA_DEBUG") !== undefined && get("KINORA_DEBUG") !== "0",
  };
}
