/** Types of ./bundle-check.mjs (a plain module: build.mjs runs it without a compile step). */
export function loadsFromOutside(code: string, allowed: Iterable<string>): string[];
