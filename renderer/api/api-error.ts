/** An API call the server refused: the status and every message it gave (validation errors name their node). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: string[],
  ) {
    super(errors.join('\n') || `request failed with status ${status}`);
  }
}

/** Pulls the error messages out of whatever a failed call carried. */
export function errorMessages(e: unknown): string[] {
  if (e instanceof ApiError) return e.errors.length ? e.errors : [e.message];
  if (e instanceof Error) return [e.message];
  return [String(e)];
}
