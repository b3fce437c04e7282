// The settings navigation is a view (views/settings-nav.ts); pages that import it from here keep
// working until they move to views/ themselves.
export { settingsNav } from "./views/settings-nav.ts";
