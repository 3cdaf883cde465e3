/**
 * The error an API call fails with: an HTTP status, a message for the person, and, for an invalid
 * workflow, each problem with its path. The service throws it; http.ts and ipc-handlers.ts turn it
 * into a response. On its own so that pure modules (guard.ts) throw it without loading the service.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: string[],
  ) {
    super(message);
  }
}
