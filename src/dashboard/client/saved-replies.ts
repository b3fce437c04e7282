// Saved replies in a ticket's reply form: choosing one puts its text (variables already filled in
// by the page, in the #saved-texts template) into the reply at the cursor, so the Insert button's
// round trip is not needed; typing `/` in an empty reply opens the choice.
export function savedReplies(): void {
  const select = document.querySelector<HTMLSelectElement>("select[name=saved_reply]");
  const reply = document.querySelector<HTMLTextAreaElement>("textarea[name=reply]");
  const texts = document.getElementById("saved-texts");
  if (!select || !reply || !(texts instanceof HTMLTemplateElement)) return;
  document.querySelectorAll<HTMLElement>("[data-insert-saved]").forEach((button) => button.remove());
  select.addEventListener("change", () => {
    const source = texts.content.querySelector<HTMLTextAreaElement>(`[data-saved-id="${CSS.escape(select.value)}"]`);
    if (!source) return;
    const at = reply.selectionStart ?? reply.value.length;
    reply.setRangeText(source.value, at, reply.selectionEnd ?? at, "end");
    select.value = "";
    reply.focus();
  });
  reply.addEventListener("keydown", (event) => {
    if (event.key !== "/" || reply.value.trim() !== "") return;
    event.preventDefault();
    select.focus();
    try {
      (select as HTMLSelectElement & { showPicker?(): void }).showPicker?.();
    } catch {
      // focused is enough
    }
  });
}
