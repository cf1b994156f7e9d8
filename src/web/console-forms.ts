/**
 * The console's forms as operation calls, in one place: which operation each runs, how its
 * fields become that operation's input (dollars typed become cents), and how it labels the
 * operation's fields when a refusal names one ("limit_cents: …" → "Spending limit: …"). A form
 * refuses on its own only what the operation cannot see: text that is not an amount of dollars.
 * Everything else — ranges, bidirectional controls, a key's spent amount, a receiver's address —
 * is the operation's refusal, worded as REST words it.
 */

import { createTopUpLink } from "../api/contracts/payments.js";
import { changeAgentKeyLimit, createAgentKey, revokeAgentKey } from "../api/contracts/wallet.js";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookSecret,
  testWebhookEndpoint,
} from "../api/contracts/webhooks.js";
import type { AnyContract } from "../api/operation.js";
import { AGENT_KEY_LIMIT_CENTS, CARD_TOPUP_CENTS } from "../domain/limits.js";
import { displayCents } from "../domain/money.js";

/** A posted form: each field's values in order (checkboxes may repeat a name). */
export type FormValues = Readonly<Record<string, readonly string[]>>;

/** The first value of `name`, or "". */
export const one = (form: FormValues, name: string) => form[name]?.[0] ?? "";

/** A form's fields as posted (URL-encoded). */
export function formValues(body: string): FormValues {
  const out: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(body)) out[k] = [...(out[k] ?? []), v];
  return out;
}

/** "5", "5.5", "$5.00" → cents; null when it is not an amount of dollars (and cents). */
export function parseDollars(text: string): number | null {
  const m = /^\s*\$?\s*(\d{1,6})(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
}

/** Cents within `range` typed as dollars, or the form's own refusal (a string). */
function dollarsIn(text: string, range: { min: number; max: number }, what: string) {
  const cents = parseDollars(text);
  if (cents !== null && cents >= range.min && cents <= range.max) return cents;
  return `${what}: give dollars from ${displayCents(range.min)} to ${displayCents(range.max)}.`;
}

/**
 * The owner's threshold typed as dollars: empty asks for every purchase (null); otherwise cents,
 * or the form's own refusal (a string). Its range is the operation's to refuse.
 */
function askAboveIn(text: string): number | null | string {
  if (text.trim() === "") return null;
  const cents = parseDollars(text);
  if (cents !== null) return cents;
  return "Ask only above: give dollars (e.g. 1.00), or leave it empty to ask before every purchase.";
}

/** One console form: the operation it runs and how its fields become that operation's input. */
export interface ConsoleForm<C extends AnyContract = AnyContract> {
  contract: C;
  /** The operation's fields as the form labels them, for its refusals. */
  fields: Readonly<Record<string, string>>;
  /**
   * The operation's input from the form and the id in its URL; a string is the form's own
   * refusal (what was typed cannot be read as the operation's input).
   */
  input(form: FormValues, id: string): Record<string, unknown> | string;
}

const form = <C extends AnyContract>(f: ConsoleForm<C>) => f;

/** Every console form that runs an operation (a job's Cancel: cancelJobForm, per kind). */
export const CONSOLE_FORMS = {
  topup: form({
    contract: createTopUpLink,
    fields: { amount_cents: "Amount" },
    input: (f) => {
      const cents = dollarsIn(one(f, "amount_dollars"), CARD_TOPUP_CENTS, "Amount");
      return typeof cents === "string" ? cents : { amount_cents: cents };
    },
  }),
  newKey: form({
    contract: createAgentKey,
    fields: {
      label: "Label",
      limit_cents: "Spending limit",
      ask_before_spending: "Ask first",
      ask_above_cents: "Ask only above",
    },
    input: (f) => {
      const cents = dollarsIn(one(f, "limit_dollars"), AGENT_KEY_LIMIT_CENTS, "Spending limit");
      if (typeof cents === "string") return cents;
      const askAbove = askAboveIn(one(f, "ask_above_dollars"));
      if (typeof askAbove === "string") return askAbove;
      const label = one(f, "label").trim();
      return {
        ...(label ? { label } : {}),
        limit_cents: cents,
        ask_before_spending: one(f, "trust") !== "1",
        ask_above_cents: askAbove,
      };
    },
  }),
  keyLimit: form({
    contract: changeAgentKeyLimit,
    fields: { limit_cents: "New limit", ask_above_cents: "Ask only above" },
    input: (f, id) => {
      const cents = dollarsIn(one(f, "limit_dollars"), AGENT_KEY_LIMIT_CENTS, "New limit");
      if (typeof cents === "string") return cents;
      // A key that never asks has no threshold field: its threshold stays as it is.
      if (f.ask_above_dollars === undefined) return { key_id: id, limit_cents: cents };
      const askAbove = askAboveIn(one(f, "ask_above_dollars"));
      if (typeof askAbove === "string") return askAbove;
      return { key_id: id, limit_cents: cents, ask_above_cents: askAbove };
    },
  }),
  revokeKey: form({ contract: revokeAgentKey, fields: {}, input: (_f, id) => ({ key_id: id }) }),
  newEndpoint: form({
    contract: createWebhookEndpoint,
    fields: { url: "URL", events: "Events", description: "Description" },
    input: (f) => ({ url: one(f, "url").trim(), events: [...(f.events ?? [])] }),
  }),
  testEndpoint: form({
    contract: testWebhookEndpoint,
    fields: {},
    input: (_f, id) => ({ endpoint_id: id }),
  }),
  deleteEndpoint: form({
    contract: deleteWebhookEndpoint,
    fields: {},
    input: (_f, id) => ({ endpoint_id: id }),
  }),
  rotateSecret: form({ contract: rotateWebhookSecret, fields: {}, input: () => ({}) }),
} as const;

/** A job's Cancel: its kind's cancel operation, for the job in the form's URL. */
export const cancelJobForm = (cancel: AnyContract): ConsoleForm =>
  form({ contract: cancel, fields: {}, input: (_f, id) => ({ job_id: id }) });
