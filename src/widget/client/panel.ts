// The panel: the launcher opens and closes it (a modal dialog with its focus trapped), and the
// launcher's badge counts people's replies that arrived while it was closed.
import { CHAT_ICON, CLOSE_ICON, svg, trapFocus } from "./dom.ts";
import type { Widget } from "./context.ts";

export interface Panel {
  open(focus?: boolean): void;
  close(): void;
  showUnread(): void;
}

export function createPanel(w: Widget, render: () => void): Panel {
  const { launcher, badge, panel, closeButton, input, root } = w.shell;
  const { state } = w;
  /** The launcher's accessible name says what its badge shows. */
  const showUnread = () => {
    const unread = panel.hidden ? (state.unread ?? 0) : 0;
    badge.textContent = String(unread);
    badge.hidden = unread === 0;
    const { t } = w.texts;
    launcher.setAttribute(
      "aria-label",
      !panel.hidden ? t("widget.close_chat") : unread ? t("widget.open_chat_unread", { count: unread }) : t("widget.open_chat"),
    );
  };
  const open = (focus = true) => {
    if (!panel.hidden) return;
    panel.hidden = false;
    launcher.setAttribute("aria-expanded", "true");
    launcher.replaceChildren(svg(CLOSE_ICON), badge);
    state.open = true;
    state.unread = 0;
    showUnread();
    w.save();
    render();
    if (focus) input.focus();
    w.emit("open", {});
  };
  const close = () => {
    if (panel.hidden) return;
    panel.hidden = true;
    launcher.setAttribute("aria-expanded", "false");
    launcher.replaceChildren(svg(CHAT_ICON), badge);
    showUnread();
    state.open = false;
    w.save();
    launcher.focus();
    w.emit("close", {});
  };
  launcher.addEventListener("click", () => (panel.hidden ? open() : close()));
  closeButton.addEventListener("click", close);
  trapFocus(panel, root, close);
  w.texts.bind(showUnread);
  return { open, close, showUnread };
}
