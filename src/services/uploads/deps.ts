import type { BlobStore } from "../../storage/blob-store.js";
import type { CoreDeps } from "../deps.js";

/** What the upload use cases need: the database, clock, ids, events and the store. */
export interface UploadsDeps extends CoreDeps {
  storage: BlobStore;
}
