/**
 * Text an owner or a client supplied (a key's label, a webhook's description, a file name, a
 * prompt, an e-mail), as kinora's pages show it: inside <bdi>, so it cannot reorder the sentence
 * around it, and without bidirectional controls. Those are refused at input (domain/bidi.ts);
 * rows stored before that rule may still hold them, and a page must not let one reverse a name.
 */
import { withoutBidiControls } from "../domain/bidi.js";

/** Owner-supplied text for an attribute or a sentence built in code: without bidi controls. */
export const ownedText = (text: string) => withoutBidiControls(text);

/** Owner-supplied text in a page: isolated, and without bidi controls. */
export function Owned(props: { text: string; id?: string }) {
  return <bdi id={props.id}>{withoutBidiControls(props.text)}</bdi>;
}
