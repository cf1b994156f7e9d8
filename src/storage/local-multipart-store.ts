/**
 * The local store's side of the BlobStore multipart seam: the same calls S3 takes, answered
 * from the upload's folder on disk (local-multipart.ts), with part URLs signed and served by
 * kinora itself (`PUT /files/p/<token>`, local-part-route.ts).
 */
import {
  checksumHeader,
  isBase64Digest,
  isPartNumber,
  partOffset,
  partSize,
} from "../domain/uploads.js";
import type { Signer } from "../signing.js";
import { assertLifetime, MultipartError, type MultipartUploads } from "./blob-store.js";
import { assertValidKey } from "./keys.js";
import type { LocalMultipart } from "./local-multipart.js";
import { signToken } from "./local-token.js";

interface LocalMultipartDeps {
  parts: LocalMultipart;
  signer: Signer;
  /** Where the store's routes are mounted, e.g. http://127.0.0.1:8080/files. */
  baseUrl: string;
  /** Unix seconds `expiresInSec` from now. */
  expiry: (expiresInSec: number) => number;
}

const UPLOAD_ID = /^[0-9a-f]{32}$/;

/** Uploads in parts on the local store, behind the seam S3 implements too. */
export function localMultipartUploads(deps: LocalMultipartDeps): MultipartUploads {
  const { parts } = deps;
  const planOf = async (key: string, uploadId: string) => {
    assertValidKey(key);
    const plan = UPLOAD_ID.test(uploadId) ? await parts.readPlan(key, uploadId) : null;
    if (!plan) {
      throw new MultipartError(
        "no_such_upload",
        `no upload in parts ${uploadId} of ${key} is open`,
      );
    }
    return plan;
  };
  return {
    async create(key, { contentType, plan, checksum }) {
      assertValidKey(key);
      const uploadId = await parts.create(key, { ...plan, contentType, checksum });
      return { uploadId };
    },
    async presignPart(key, uploadId, { partNumber, sizeBytes, checksum, expiresInSec }) {
      assertLifetime(expiresInSec);
      const plan = await planOf(key, uploadId);
      if (!isPartNumber(plan, partNumber)) {
        throw new RangeError(`part ${partNumber} is outside 1–${plan.partCount}`);
      }
      if (partSize(plan, partNumber) !== sizeBytes) {
        throw new RangeError(
          `part ${partNumber} is ${partSize(plan, partNumber)} bytes, not ${sizeBytes}`,
        );
      }
      if (!isBase64Digest(plan.checksum, checksum)) {
        throw new TypeError(`checksum must be a base64 ${plan.checksum} digest`);
      }
      const expiresAtSec = deps.expiry(expiresInSec);
      const token = signToken(
        {
          purpose: "part",
          key,
          uploadId,
          partNumber,
          offset: partOffset(plan, partNumber),
          sizeBytes,
          algorithm: plan.checksum,
          checksum,
          expiresAtSec,
        },
        deps.signer,
      );
      const header = checksumHeader(plan.checksum);
      return {
        url: `${deps.baseUrl}/p/${token}`,
        headers: { [header]: checksum },
        expiresAt: new Date(expiresAtSec * 1000),
      };
    },
    async listParts(key, uploadId, opts = {}) {
      await planOf(key, uploadId);
      return parts.listParts(key, uploadId, opts.only);
    },
    async complete(key, uploadId, given) {
      await planOf(key, uploadId);
      return parts.complete(key, uploadId, given);
    },
    async abort(key, uploadId) {
      assertValidKey(key);
      if (UPLOAD_ID.test(uploadId)) await parts.abort(key, uploadId);
    },
  };
}
