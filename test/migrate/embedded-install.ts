/**
 * A small embedded install on disk, made the way callers make one — through the API of the
 * test app running on PGlite in DATA_DIR with the local store in DATA_DIR/files: wallets and
 * keys, top-ups, a paid test checkout, an agent's restore job with its uploaded video, a
 * cancelled (refunded) job, a clip with its image, an idempotent key creation, an OAuth
 * client, a console session, a run of small adjustments — then closed, as a stopped server
 * leaves it. Also a stray unfinished upload (.part) that must not travel.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "../../src/db/database.js";
import { migrate } from "../../src/db/migrate.js";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { consoleFeature } from "../../src/features/console.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { checkoutPageToken } from "../../src/payments/test-checkout/provider.js";
import { credit } from "../../src/services/ledger.js";
import { createSigner } from "../../src/signing.js";
import { createLocalBlobStore } from "../../src/storage/local-store.js";
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from "../app.js";
import { makeImage, stubClassifier } from "../clips/helpers.js";
import { browserless } from "../connected-apps/browserless.js";

export const SIGNING_SECRET = "embedded-signing-secret-0123456789abcdef";

export interface EmbeddedInstall {
  dataDir: string;
  owner: { key: string; walletId: string };
  agent: { key: string; id: string };
  /** Objects the local store holds: key → [bytes, content type]. */
  objects: Map<string, { bytes: Buffer; contentType: string }>;
  /** The console session cookie, still valid after the move. */
  sessionCookie: string;
  remove(): void;
}

function expectStatus(what: string, res: { status: number; body: unknown }, status = 200) {
  if (res.status !== status) {
    throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

export async function buildEmbeddedInstall(): Promise<EmbeddedInstall> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "kinora-embedded-"));
  const filesDir = path.join(dataDir, "files");
  // What `kinora serve` leaves beside the database when the operator set no secrets.
  writeFileSync(path.join(dataDir, "admin-token"), "embedded-admin-token-0123456789\n");
  writeFileSync(path.join(dataDir, "signing-secret"), `${SIGNING_SECRET}\n`);
  const t = await createTestApp({
    database: async () => {
      const database = await openDatabase({ dataDir });
      await migrate(database.db);
      return { ...database, cleanup: () => database.close() };
    },
    features: [
      restoreFeature(),
      clipsFeature({ classifier: stubClassifier().classifier }),
      paymentsFeature(),
      connectedAppsFeature(),
      consoleFeature(),
    ],
    platform: (p) => ({
      ...p,
      signer: createSigner(SIGNING_SECRET),
      storage: createLocalBlobStore({
        rootDir: filesDir,
        publicBaseUrl: TEST_PUBLIC_URL,
        signer: SIGNING_SECRET,
      }),
    }),
  });
  const remove = () => rmSync(dataDir, { recursive: true, force: true });
  let made: Awaited<ReturnType<typeof fill>>;
  try {
    made = await fill(t);
  } catch (err) {
    await t.close();
    remove();
    throw err;
  }
  // Closed as a stopped server leaves it: the lock released, the database on disk.
  await t.close();
  // An upload cut off mid-way leaves its temp file; it is not an object.
  mkdirSync(path.join(filesDir, "restore", "rj_unfinished"), { recursive: true });
  writeFileSync(path.join(filesDir, "restore", "rj_unfinished", ".input.0a1b2c.part"), "half");
  return { dataDir, ...made, remove };
}

type Objects = EmbeddedInstall["objects"];
type Caller = { key: string };

async function fill(t: TestApp): Promise<Omit<EmbeddedInstall, "dataDir" | "remove">> {
  const owner = await t.newWallet(5000);
  const other = await t.newWallet(700);
  const keyRes = await t.call("POST", "/wallet/keys", {
    key: owner.key,
    body: { limit_cents: 3000, label: "assistant", ask_before_spending: false },
    headers: { "Idempotency-Key": "migrate-fixture-key-1" },
  });
  expectStatus("POST /wallet/keys", keyRes);
  const agent = { key: keyRes.body.key as string, id: keyRes.body.agent_key.id as string };
  const objects: Objects = new Map();
  await restoreJobs(t, agent, owner, objects);
  await clip(t, owner, objects);
  await paidCheckout(t, other);
  expectStatus(
    "POST /oauth/register",
    await t.call("POST", "/oauth/register", {
      body: {
        client_name: "Fixture App",
        redirect_uris: ["http://127.0.0.1:8765/cb"],
        token_endpoint_auth_method: "none",
      },
    }),
    201,
  );
  const sessionCookie = await consoleSession(t, owner);
  // Enough entries that the copy pages through the ledger when asked for small pages.
  for (let i = 1; i <= 12; i++) {
    await credit(t.platform.db, {
      walletId: other.walletId,
      amountCents: i % 3 === 0 ? -1 : 2,
      kind: "adjustment",
      reference: `fixture-adjustment-${i}`,
      reason: `fixture adjustment ${i}`,
    });
  }
  return { owner, agent, objects, sessionCookie };
}

/** An agent's started restore job with its video, and the owner's cancelled (refunded) one. */
async function restoreJobs(t: TestApp, agent: Caller, owner: Caller, objects: Objects) {
  const video = randomBytes(40_000);
  const job = await t.call("POST", "/cloud/jobs", {
    key: agent.key,
    body: {
      duration_sec: 2,
      quality: "faithful",
      filename: "home-movie.mp4",
      content_type: "video/mp4",
      size: video.length,
    },
  });
  expectStatus("POST /cloud/jobs", job);
  await putFile(t, job.body, video);
  expectStatus("start", await t.call("POST", `/cloud/jobs/${job.body.job.id}/start`, agent));
  objects.set(`restore/${job.body.job.id}/input`, { bytes: video, contentType: "video/mp4" });

  const cancelled = await t.call("POST", "/cloud/jobs", {
    key: owner.key,
    body: {
      duration_sec: 30,
      quality: "enhanced",
      filename: "b.mp4",
      content_type: "video/mp4",
      size: 1000,
    },
  });
  expectStatus("POST /cloud/jobs (to cancel)", cancelled);
  const cancel = await t.call("POST", `/cloud/jobs/${cancelled.body.job.id}/cancel`, owner);
  expectStatus("cancel", cancel);
}

/** A started clip with its image in the store. */
async function clip(t: TestApp, owner: Caller, objects: Objects) {
  const image = await makeImage(160, 120);
  const created = await t.call("POST", "/motion/jobs", {
    key: owner.key,
    body: { prompt: "slow push in", content_type: "image/jpeg", image_bytes: image.length },
  });
  expectStatus("POST /motion/jobs", created);
  await putFile(t, created.body, image);
  const started = await t.call("POST", `/motion/jobs/${created.body.job.id}/start`, owner);
  expectStatus("clip start", started);
  objects.set(`clips/${created.body.job.id}/image`, { bytes: image, contentType: "image/jpeg" });
}

async function putFile(
  t: TestApp,
  created: { upload_url: string; upload_headers: Record<string, string> },
  bytes: Buffer,
) {
  const put = await t.fetchUrl(created.upload_url, {
    method: "PUT",
    headers: created.upload_headers,
    body: new Uint8Array(bytes),
  });
  if (!put.ok) throw new Error(`upload: ${put.status} ${await put.text()}`);
}

/** A card top-up paid on the built-in test checkout page. */
async function paidCheckout(t: TestApp, wallet: Caller) {
  const topup = await t.call("POST", "/wallet/topup", {
    key: wallet.key,
    body: { amount_cents: 1500 },
  });
  expectStatus("POST /wallet/topup", topup);
  const id = topup.body.checkout_id as string;
  const pay = await t.app.request(
    `/checkout/${id}/pay?token=${checkoutPageToken(createSigner(SIGNING_SECRET), id, Date.now())}`,
    { method: "POST" },
  );
  if (pay.status !== 303) throw new Error(`pay: ${pay.status}`);
}

/** Signs in to the console with the wallet key; returns the session cookie. */
async function consoleSession(t: TestApp, owner: Caller): Promise<string> {
  const browser = browserless(t);
  const signIn = await browser.get("/console");
  const { csrf } = browser.fields(await signIn.text());
  await browser.post("/console/signin", { csrf, wallet_key: owner.key });
  const session = browser.cookies.get("kinora_session");
  if (!session) throw new Error("console sign-in set no session cookie");
  return `kinora_session=${session}`;
}
