// What the campaign pages share: the status badge, the member as the actor of a change, and a
// service's 400 as field errors (details name `/name`, `/steps/2/subject`…: form fields `name`,
// `s2_subject`).
import type { AppError } from "../errors.ts";
import { memberActor } from "../kit/actor.ts";
import { type DashboardContext, detailErrors, type FieldErrors } from "./kit/index.ts";

export { statusBadge } from "./views/campaign-status.ts";

export function actor(ctx: DashboardContext) {
  return memberActor(ctx.principal.member.id);
}

export function serviceErrors(error: AppError): FieldErrors {
  const key = (parts: string[]) =>
    parts[0] === "steps" && parts.length >= 3
      ? `s${parts[1]}_${parts[2] === "delay_seconds" ? "delay" : parts[2]}`
      : parts[0] === "steps"
        ? "steps"
        : (parts[0] ?? "name");
  return detailErrors(error, key, "name", { plain: true });
}
