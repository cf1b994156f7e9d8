/**
 * A console form refused: the message shown beside the form that was sent (not at the top of a
 * long page), with what the owner typed put back into it. Each form's action carries the
 * fragment of its own heading, so the page that answers opens there without a script.
 */

/** The console's forms that create something. */
export type ConsoleForm = "key" | "webhook";

/** Why a form was refused, and what was typed into it. */
export interface FormError {
  form: ConsoleForm;
  message: string;
  /** Field values as sent, by input name (checkboxes: the values checked). */
  values: Record<string, string | string[]>;
}

/** The value typed into `name`, when `error` is this form's. */
export function typed(error: FormError | undefined, form: ConsoleForm, name: string) {
  if (error?.form !== form) return undefined;
  const v = error.values[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The values checked for `name`, when `error` is this form's. */
export function checked(error: FormError | undefined, form: ConsoleForm, name: string) {
  if (error?.form !== form) return undefined;
  const v = error.values[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
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

/** The CSRF token every console form carries. */
export function Hidden(props: { csrf: string }) {
  return <input type="hidden" name="csrf" value={props.csrf} />;
}
