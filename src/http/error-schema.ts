// The JSON error shape of the dashboard and SDK APIs (src/http/errors.ts builds it), as a TypeBox
// schema for the OpenAPI document.
import { t } from "elysia";

export const ErrorBody = t.Object({
  error: t.Object({
    code: t.String(),
    message: t.String(),
    details: t.Optional(t.Array(t.Object({ path: t.String(), message: t.String() }))),
    request_id: t.String(),
  }),
});
