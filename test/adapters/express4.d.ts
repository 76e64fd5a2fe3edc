/** `express4` is Express 4 installed under an alias for the Express 4 runner; typed at the use site. */
declare module 'express4' {
  const express: unknown;
  export default express;
}
