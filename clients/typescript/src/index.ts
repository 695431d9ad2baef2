export { Client, VERSION } from './client.js';
export type {
  ClientOptions,
  CreateKeyOptions,
  LinkOptions,
  ListOptions,
  PossibleUpdatesOptions,
  RecallOptions,
  RequestOptions,
  StoreOptions,
  SuggestOptions,
  SummarizeOptions,
  TimelineOptions,
} from './client.js';
export {
  ForbiddenError,
  InternalError,
  InvalidInputError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  RearviewConnectionError,
  RearviewError,
  RearviewTimeoutError,
  RequestTimeoutError,
  UnauthorizedError,
  UnavailableError,
} from './errors.js';
export type * from './types.js';
