// The one way to answer JSON: every route, error mapper and protocol edge builds its response here,
// so the content type and serialisation are the same everywhere.
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}
