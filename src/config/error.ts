/** A setting is missing or wrong; the message names it (the server does not start). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** The ConfigError of one setting that contradicts another (each area's cross-checks). */
export function invalidSetting(line: string): ConfigError {
  return new ConfigError(`Invalid configuration:\n  ${line}`);
}
