/**
 * /approve/{id}: where the owner answers a purchase an asking key waits for, and
 * /console/approvals, their list. Both run the operations REST serves (getApproval,
 * decideApproval, listApprovals) as the signed-in wallet key, like every console form — so only
 * the owner of the key's wallet can see or decide it, and no agent key can (it has no session,
 * and the operations take the wallet key only). Signed out, the page is the console's sign-in,
 * which leads back here.
 */
import type { Context } from "hono";
import { decideApproval, getApproval, listApprovals } from "../api/contracts/approvals.js";
import type { AppEnv } from "../http/env.js";
import { smallBody } from "../http/middleware/body-limit.js";
import type { Router } from "../http/router.js";
import {
  ApprovalMissingPage,
  ApprovalsListPage,
  type ApprovalView,
  ApprovePage,
} from "./approve-pages.js";
import { one } from "./console-forms.js";
import { type ConsoleKit, formOf, page, refusedPage, signedIn } from "./console-kit.js";
import { SignInPage } from "./console-pages.js";
import { type Caller, callOperation } from "./operation-client.js";
import { csrfToken, csrfValid } from "./session.js";

/** The sign-in page, leading back to `next` (an approval page or the list). */
const signInFor = (
  kit: ConsoleKit,
  c: Context<AppEnv>,
  next: string,
  error = "Sign in with your wallet key to answer this purchase.",
  status: 200 | 403 = 200,
) => page(kit, c, <SignInPage csrf={csrfToken(kit.web, c)} next={next} error={error} />, status);

/** The approval `id` as the owner reads it, or the page that says why not. */
async function approvalOf(
  kit: ConsoleKit,
  c: Context<AppEnv>,
  caller: Caller,
  id: string,
): Promise<{ a: ApprovalView } | { answer: Response }> {
  const read = await callOperation(kit.surface, c, {
    contract: getApproval,
    input: { approval_id: id },
    caller,
  });
  if (read.ok) return { a: read.body.approval };
  if (read.status === 404) {
    return { answer: page(kit, c, <ApprovalMissingPage detail={read.detail} />, 404) };
  }
  return { answer: refusedPage(kit, c, read) };
}

/** POST /approve/{id}: the owner's Approve or Decline, by the decideApproval operation. */
async function decide(kit: ConsoleKit, c: Context<AppEnv>, id: string) {
  const form = await formOf(c);
  const back = `/approve/${id}`;
  if (!csrfValid(kit.web, c, one(form, "csrf"))) {
    return signInFor(kit, c, back, "That form expired; sign in again.", 403);
  }
  const s = await signedIn(kit, c);
  if ("answer" in s) return s.answer;
  if (!s.caller) return c.redirect(back, 303);
  const decision = one(form, "decision");
  const answer = await callOperation(kit.surface, c, {
    contract: decideApproval,
    input: { approval_id: id, decision },
    caller: s.caller,
    token: one(form, "idem") || undefined,
  });
  const seen = await approvalOf(kit, c, s.caller, id);
  if ("answer" in seen) return seen.answer;
  const csrf = csrfToken(kit.web, c);
  if (!answer.ok) {
    const status = answer.status === 409 ? 409 : 400;
    return page(kit, c, <ApprovePage a={seen.a} csrf={csrf} error={answer.detail} />, status);
  }
  const done =
    answer.body.approval.status === "approved"
      ? "Approved. The agent's same request will now go through, once."
      : "Declined. Nothing will be charged.";
  return page(kit, c, <ApprovePage a={seen.a} csrf={csrf} done={done} />);
}

/** The approval page, its decision and the owner's list. */
export function registerApprovalRoutes(app: Router, kit: ConsoleKit) {
  app.use("/approve/*", smallBody);
  app.get("/approve/:id", async (c) => {
    const id = c.req.param("id");
    const s = await signedIn(kit, c);
    if ("answer" in s) return s.answer;
    if (!s.caller) return signInFor(kit, c, `/approve/${id}`);
    const seen = await approvalOf(kit, c, s.caller, id);
    if ("answer" in seen) return seen.answer;
    return page(kit, c, <ApprovePage a={seen.a} csrf={csrfToken(kit.web, c)} />);
  });
  app.post("/approve/:id", (c) => decide(kit, c, c.req.param("id")));
  app.get("/console/approvals", async (c) => {
    const s = await signedIn(kit, c);
    if ("answer" in s) return s.answer;
    if (!s.caller) return signInFor(kit, c, "/console/approvals", "Sign in with your wallet key.");
    const list = await callOperation(kit.surface, c, {
      contract: listApprovals,
      input: {},
      caller: s.caller,
    });
    if (!list.ok) return refusedPage(kit, c, list);
    return page(kit, c, <ApprovalsListPage approvals={list.body.approvals} />);
  });
}

/** Where a sign-in may lead back to: an approval page or the list, nothing else. */
export function approvalReturnPath(next: string): string | undefined {
  return /^\/approve\/apr_[0-9A-Za-z]{1,40}$/.test(next) || next === "/console/approvals"
    ? next
    : undefined;
}
