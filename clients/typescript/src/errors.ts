/**
 * Errors. Every failure the client throws is a `RearviewError` with the server's `status`,
 * `code` and `message`; a subclass per HTTP status lets callers `catch` by kind. Failures with
 * no HTTP answer (timeout, network) have `status` 0. A caller's own `AbortSignal` aborting
 * rethrows its reason unchanged, as `fetch` does.
 */

/** Any error the rearview client throws. */
export class RearviewError extends Error {
  /** HTTP status; 0 when no answer came (timeout, network). */
  readonly status: number;
  /** The server's error code (`invalid_input`, `not_found`, …), or `timeout` / `connection_error`. */
  readonly code: string;
  /** Seconds the server asked to wait (`Retry-After`), when it said. */
  readonly retryAfter: number | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { retryAfter?: number | undefined; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.retryAfter = options.retryAfter;
  }
}

/** 400 `invalid_input`: the message names the field and what is allowed. */
export class InvalidInputError extends RearviewError {}
/** 401 `unauthorized`: no valid API key. */
export class UnauthorizedError extends RearviewError {}
/** 403 `forbidden` (a namespace outside the key's grant) or `host_not_allowed`. */
export class ForbiddenError extends RearviewError {}
/** 404 `not_found`. */
export class NotFoundError extends RearviewError {}
/** 405 `method_not_allowed`. */
export class MethodNotAllowedError extends RearviewError {}
/** 408 `request_timeout`: the server timed out reading the request. */
export class RequestTimeoutError extends RearviewError {}
/** 413 `payload_too_large`. */
export class PayloadTooLargeError extends RearviewError {}
/** 429 `rate_limited`: the key is over its request rate. */
export class RateLimitedError extends RearviewError {}
/** 500 `internal`. */
export class InternalError extends RearviewError {}
/** 503 `unavailable` (e.g. no embedding model, the LLM failed) or `overloaded`. */
export class UnavailableError extends RearviewError {}
/** No answer within the client's timeout (`code` `timeout`, `status` 0). */
export class RearviewTimeoutError extends RearviewError {}
/** The server could not be reached (`code` `connection_error`, `status` 0). */
export class RearviewConnectionError extends RearviewError {}

const BY_STATUS: Record<number, typeof RearviewError> = {
  400: InvalidInputError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  408: RequestTimeoutError,
  413: PayloadTooLargeError,
  429: RateLimitedError,
  500: InternalError,
  503: UnavailableError,
};

/** The error for an HTTP answer: the subclass for its status, else `RearviewError`. */
export function errorForStatus(
  status: number,
  code: string,
  message: string,
  retryAfter?: number,
): RearviewError {
  const Kind = BY_STATUS[status] ?? RearviewError;
  return new Kind(status, code, message, { retryAfter });
}
