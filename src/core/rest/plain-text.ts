/**
 * Response data that is not JSON: written as its text (the handler sets the `Content-Type`), e.g. the bare nonce of
 * `GET cms-auth/v1/nonce`. Inside JSON (`_envelope`) it is its text as a JSON string.
 */
export class PlainText {
  /** The text in UTF-8. */
  readonly bytes: Buffer;

  constructor(readonly text: string) {
    this.bytes = Buffer.from(text);
  }

  toJSON(): string {
    return this.text;
  }
}
