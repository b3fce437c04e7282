// The dashboard kit, imported by every page module: the member's context (context.ts), form
// controls (fields.ts), the form-route helper (form-route.ts), the list table and its pagers
// (table.ts), the confirmation page (confirm.ts), and the shell's page (../shell.ts).
export { type DashboardContext, type DashboardDeps, type Flash, PageExit, redirect, withMember } from "./context.ts";
export {
  actionButton,
  checkbox,
  errorSummary,
  field,
  type FieldErrors,
  formList,
  formValues,
  type FormValues,
  groupError,
  jsonField,
  select,
  submit,
  textarea,
} from "./fields.ts";
export { detailErrors, formBody, IdParams, type Refused, submitForm } from "./form-route.ts";
export { badge, cursorPager, listTable, PAGE_SIZE, pageNumber, pageOf, pager, when } from "./table.ts";
export { confirmPage } from "./confirm.ts";
export { DASHBOARD_CSP, shellPage } from "../shell.ts";
