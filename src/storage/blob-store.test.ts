import { describe, expect, it } from "vitest";
import { assertContentType, assertLifetime, attachmentDisposition } from "./blob-store.js";

describe("attachmentDisposition", () => {
  it("quotes a plain name and adds a UTF-8 name when it has to", () => {
    expect(attachmentDisposition()).toBe("attachment");
    expect(attachmentDisposition("film.mp4")).toBe('attachment; filename="film.mp4"');
    expect(attachmentDisposition("ünïcode.mp4")).toBe(
      `attachment; filename="_n_code.mp4"; filename*=UTF-8''%C3%BCn%C3%AFcode.mp4`,
    );
  });

  it("cannot be used to inject headers or paths", () => {
    expect(attachmentDisposition('a"\r\nSet-Cookie: x')).toBe(
      `attachment; filename="a_Set-Cookie: x"; filename*=UTF-8''a%22Set-Cookie%3A%20x`,
    );
    expect(attachmentDisposition("../../etc/passwd")).toBe(
      'attachment; filename=".._.._etc_passwd"',
    );
    expect(attachmentDisposition("\r\n")).toBe("attachment");
  });
});

describe("signing limits", () => {
  it("bounds URL lifetimes and content types", () => {
    expect(() => assertLifetime(0)).toThrow(RangeError);
    expect(() => assertLifetime(1.5)).toThrow(RangeError);
    expect(() => assertLifetime(7 * 86400)).not.toThrow();
    expect(() => assertContentType('video/mp4; codecs="avc1"')).not.toThrow();
    expect(() => assertContentType(" video/mp4")).toThrow(TypeError);
    expect(() => assertContentType("a".repeat(256))).toThrow(TypeError);
  });
});
