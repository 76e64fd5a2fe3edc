/** Bounding the text an error quotes back (kept out of the public entry). */
import { MAX_ERROR_TEXT_LENGTH } from './limits.ts';

/** `text` cut to {@link MAX_ERROR_TEXT_LENGTH} characters, an ellipsis marking the cut. */
export function clipErrorText(text: string): string {
  return text.length > MAX_ERROR_TEXT_LENGTH ? `${text.slice(0, MAX_ERROR_TEXT_LENGTH)}…` : text;
}
