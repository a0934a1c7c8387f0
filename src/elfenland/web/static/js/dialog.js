// One way to open a dialog: named by its title, focused on open, closed by Escape, the
// keyboard's place given back on close. Used by the final scores and the hotseat cover.

/** Make `box` (already in the page) a modal dialog named by the element `titleId`.
 * `onEscape` runs on Escape (by default the dialog closes); returns close(). */
export function openDialog(box, titleId, { onEscape = null, focus = null } = {}) {
  const before = document.activeElement;
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-modal", "true");
  box.setAttribute("aria-labelledby", titleId);
  if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "-1");
  const close = () => {
    box.removeEventListener("keydown", onKey);
    box.remove();
    if (before && before.isConnected && before.focus) before.focus();
  };
  const onKey = (ev) => {
    if (ev.key !== "Escape") return;
    ev.preventDefault();
    ev.stopPropagation();
    if (onEscape) onEscape(); else close();
  };
  box.addEventListener("keydown", onKey);
  const target = (focus && box.querySelector(focus)) || box;
  target.focus();
  return close;
}
