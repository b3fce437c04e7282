// The 2xx answer of a route whose body is not JSON — a stream of Server-Sent Events, CSV, plain
// text, audio — for its `detail.responses`: src/openapi.ts puts it in the OpenAPI document as is
// (OpenAPI 3.1, "Media Type Object": a body of bytes is a string schema; `format: binary` marks
// bytes that are not text).
export interface MediaResponse {
  description: string;
  content: Record<string, { schema: Record<string, unknown> }>;
}

/** `{ 200: … }` for `detail.responses`: each media type (a range such as `audio/*` allowed) with a string schema. */
export function mediaResponse(description: string, types: readonly string[], binary = false): { 200: MediaResponse } {
  const schema = binary ? { type: "string", format: "binary" } : { type: "string" };
  return { 200: { description, content: Object.fromEntries(types.map((type) => [type, { schema }])) } };
}
