/** Opening a link in the person's browser (`--open`), best effort. */
import { spawn } from "node:child_process";

/** Starts the platform's opener detached; resolves false when there is none. */
export function openUrl(
  url: string,
  platform: NodeJS.Platform = process.platform,
): Promise<boolean> {
  const [command, args] =
    platform === "darwin"
      ? ["open", [url]]
      : platform === "win32"
        ? ["cmd", ["/c", "start", '""', url]]
        : ["xdg-open", [url]];
  return new Promise((resolve) => {
    try {
      // cast: the argument list for this platform, built just above as strings
      const child = spawn(command, args as string[], { detached: true, stdio: "ignore" });
      child.once("error", () => resolve(false));
      child.once("spawn", () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
