/**
 * Errors of the agent API, as data: HTTP status, a stable code and a human description.
 * One body shape for the whole API, the token endpoint's (RFC 6749 §5.2, docs/authentication.md):
 * `{"error": code, "error_description": text, "field"?: name}`. Handlers throw; the error
 * middleware writes.
 */

export interface ApiErrorBody {
  error: string;
  error_description: string;
  field?: string;
  /** A 409 `conflict`: the id of the resource that already holds the unique value. */
  holderId?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly options: { field?: string; holderId?: string; headers?: Record<string, string> } = {},
  ) {
    super(description);
    this.name = 'ApiError';
  }

  get body(): ApiErrorBody {
    const body: ApiErrorBody = { error: this.code, error_description: this.description };
    if (this.options.field !== undefined) body.field = this.options.field;
    if (this.options.holderId !== undefined) body.holderId = this.options.holderId;
    return body;
  }
}

/** 400 for input that does not validate; names the field. */
export function invalidInput(field: string, description: string): ApiError {
  return new ApiError(400, 'invalid_request', description, { field });
}

export function notFound(description = 'no such resource'): ApiError {
  return new ApiError(404, 'not_found', description);
}
