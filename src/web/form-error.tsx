/**
 * A console form refused: the message shown beside the form that was sent (not at the top of a
 * long page), with what the owner typed put back into it. Each form's action carries the
 * fragment of its own place on the page, so the page that answers opens there without a script.
 */
import { randomBytes } from "node:crypto";

/**
 * Which form on the page: "topup", "key", "webhook", "secret", or a row's own form —
 * `limit:<key id>`, `endpoint:<endpoint id>`, `job:<job id>`.
 */
export type ConsoleForm = string;

/** Why a form was refused, and what was typed into it. */
export interface FormError {
  form: ConsoleForm;
  message: string;
  /** Field values as sent, by input name (checkboxes: the values checked). */
  values: Readonly<Record<string, string | readonly string[]>>;
}

/** The value typed into `name`, when `error` is this form's. */
export function typed(error: FormError | undefined, form: ConsoleForm, name: string) {
  if (error?.form !== form) return undefined;
  const v = error.values[name];
  return v === undefined || typeof v === "string" ? v : v[0];
}

/** The values checked for `name`, when `error` is this form's. */
export function checked(error: FormError | undefined, form: ConsoleForm, name: string) {
  if (error?.form !== form) return undefined;
  const v = error.values[name];
  return v === undefined ? [] : typeof v === "string" ? [v] : v;
}

/** The refusal of `form`, or nothing. Inputs point at it with aria-describedby=`id`. */
export function FormErrorText(props: {
  error: FormError | undefined;
  form: ConsoleForm;
  id: string;
}) {
  if (props.error?.form !== props.form) return null;
  return (
    <p class="error" role="alert" id={props.id}>
      {props.error.message}
    </p>
  );
}

/**
 * What every form of the owner's pages carries: the CSRF token, and a token of its own — the
 * Idempotency-Key of the operation it runs, so the same form sent twice (a double click, a
 * reload, the back button) acts once and answers the first outcome again.
 */
export function Hidden(props: { csrf: string }) {
  return (
    <>
      <input type="hidden" name="csrf" value={props.csrf} />
      <input type="hidden" name="idem" value={randomBytes(16).toString("base64url")} />
    </>
  );
}
