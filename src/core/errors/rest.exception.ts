/**
 * An error answered to the client as `{ code, message, data: { status, ...data } }`, the reference's error shape.
 *
 * @example
 * throw new RestException('rest_type_invalid', 'Invalid resource.', 404);
 */
export class RestException extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 500,
    readonly data: Record<string, unknown> = {},
    /** Further errors reported after the first one (`additional_errors`). */
    readonly additional: RestException[] = [],
    /**
     * Data the error was given before its last (`additional_data`: WP_Error keeps every `add_data()` of a code, and
     * WordPress 5.6+ answers the earlier ones here).
     */
    readonly additionalData: unknown[] = [],
  ) {
    // An expected answer, not a fault: no stack trace is captured (errors of `_embed` sub-requests are frequent).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'RestException';
  }

  /** The JSON body of the error. */
  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = {
      code: this.code,
      message: this.message,
      data: { status: this.status, ...this.data },
    };
    if (this.additionalData.length) body.additional_data = this.additionalData;
    if (this.additional.length) body.additional_errors = this.additional.map((e) => e.toBody());
    return body;
  }
}
