// The dashboard's one script, served as /assets/dashboard.js (bundle.ts). Progressive enhancement
// only: every page works without it. It asks before the one-button forms that carry data-confirm,
// disables a long action's button and shows its progress label, copies snippets and secrets,
// derives a connector's slug from its name as it is typed (the same rule as slugFromName in
// ../connectors.ts), puts a chosen markdown file's text into the import form, shows only the
// credential fields of the chosen authentication method, submits a select's form on change, and
// keeps a ticket's thread, the inbox list (live-thread.ts) and the nav's queue counts (nav-counts.ts)
// live, and inserts saved replies
// (saved-replies.ts); on a chat's pages it shows whether the customer is on the site and typing, and
// tells the widget when the member types (presence.ts).
import { liveThreads } from "./live-thread.ts";
import { navCounts } from "./nav-counts.ts";
import { liveSignals } from "./presence.ts";
import { savedReplies } from "./saved-replies.ts";
import { slugOf } from "./slug.ts";

/** Long actions: disable the button and show its progress label while the request runs. */
function onSubmit(event: SubmitEvent): void {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  const question = form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
    return;
  }
  const button = event.submitter ?? form.querySelector("button[type=submit]");
  const label = button?.getAttribute("data-busy");
  if (button instanceof HTMLButtonElement && label) {
    // Disabled after the submit is dispatched, so the button's own name/value is still sent.
    setTimeout(() => {
      button.disabled = true;
      button.textContent = label;
      form.setAttribute("aria-busy", "true");
    }, 0);
  }
}

/** Copy buttons: data-copy names the element whose text is copied (hidden until this runs). */
function copyButtons(): void {
  document.querySelectorAll<HTMLButtonElement>("[data-copy]").forEach((button) => {
    button.hidden = false;
    button.addEventListener("click", () => {
      const source = document.getElementById(button.getAttribute("data-copy") ?? "");
      if (!source) return;
      const field = source instanceof HTMLInputElement || source instanceof HTMLTextAreaElement ? source : null;
      const text = field ? field.value : (source.textContent ?? "");
      const done = () => {
        const old = button.textContent;
        button.textContent = "Copied";
        setTimeout(() => (button.textContent = old), 1500);
      };
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, () => field?.select());
      else field?.select();
    });
  });
}

/** The slug follows the name as it is typed, until the slug is edited by hand. */
function slugFields(): void {
  document.querySelectorAll<HTMLInputElement>("input[data-slug-from]").forEach((slug) => {
    const name = document.getElementById(slug.getAttribute("data-slug-from") ?? "");
    if (!(name instanceof HTMLInputElement)) return;
    let touched = slug.value !== "";
    slug.addEventListener("input", () => (touched = slug.value !== ""));
    name.addEventListener("input", () => {
      if (!touched) slug.value = slugOf(name.value);
    });
  });
}

/** Markdown upload: the chosen file's text goes into the form's text field (the form stays urlencoded). */
function fileImports(): void {
  document.querySelectorAll<HTMLInputElement>("[data-file-import] input[type=file]").forEach((input) => {
    input.addEventListener("change", () => {
      const file = input.files?.[0];
      const target = input.form?.elements.namedItem("content");
      if (!file || !(target instanceof HTMLTextAreaElement)) return;
      void file.text().then((text) => (target.value = text));
    });
  });
}

/** File upload: each chosen file's name and base64 content become form fields (the form stays urlencoded); a submit waits for the reading. */
function fileUploads(): void {
  document.querySelectorAll<HTMLInputElement>("[data-file-upload] input[type=file]").forEach((input) => {
    const form = input.form;
    const box = form?.querySelector<HTMLElement>("[data-file-fields]");
    if (!form || !box) return;
    const hidden = (name: string, value: string) => Object.assign(document.createElement("input"), { type: "hidden", name, value });
    const encode = async (file: File) => {
      const bytes = new Uint8Array(await file.arrayBuffer());
      let binary = "";
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return [hidden("file_name", file.name), hidden("file_base64", btoa(binary))];
    };
    let reading: Promise<void> | null = null;
    input.addEventListener("change", () => {
      box.replaceChildren();
      const files = Array.from(input.files ?? []);
      const done = Promise.all(files.map(encode)).then((fields) => {
        if (reading === done) box.replaceChildren(...fields.flat());
      });
      reading = done;
      void done.finally(() => reading === done && (reading = null));
    });
    form.addEventListener(
      "submit",
      (event) => {
        if (!reading) return;
        event.preventDefault();
        event.stopImmediatePropagation();
        void reading.then(() => form.requestSubmit());
      },
      { capture: true },
    );
  });
}

/** Credentials: only the fields of the chosen authentication method are shown (all without the script). */
function authMethods(): void {
  document.querySelectorAll<HTMLSelectElement>("select[name=auth_method]").forEach((method) => {
    const scope = method.closest("fieldset");
    if (!scope) return;
    const show = () => scope.querySelectorAll<HTMLElement>("[data-auth]").forEach((el) => (el.hidden = el.getAttribute("data-auth") !== method.value));
    method.addEventListener("change", show);
    show();
  });
}

/** Change a select, submit its form (with a visible button as the no-script path). */
function autosubmit(): void {
  document.querySelectorAll<HTMLSelectElement>("select[data-autosubmit]").forEach((s) => s.addEventListener("change", () => s.form?.requestSubmit()));
}

/** A knowledge source's sync: its progress follows /api/knowledge/sources/{id}; at its end the page reloads. */
function syncProgress(): void {
  document.querySelectorAll<HTMLElement>("[data-sync-progress]").forEach((el) => {
    const poll = async () => {
      const res = await fetch(`/api/knowledge/sources/${el.getAttribute("data-sync-progress")}`, { credentials: "same-origin" }).catch(() => null);
      const source = res?.ok ? ((await res.json()) as { status: string; progress: { done: number; found: number } | null }) : null;
      if (source && source.status !== "syncing") return location.reload();
      if (source?.progress) el.textContent = `${source.progress.done} of ${source.progress.found} pages done`;
      setTimeout(poll, 1500);
    };
    setTimeout(poll, 1500);
  });
}

document.addEventListener("submit", onSubmit);
copyButtons();
slugFields();
fileImports();
fileUploads();
authMethods();
autosubmit();
liveThreads();
liveSignals();
navCounts();
syncProgress();
savedReplies();
