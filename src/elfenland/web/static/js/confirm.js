// Asking before a choice that cannot be taken back (a placed counter, a step, the end of
// a move, a discard, a King of the Elves play). Each player picks how often in their
// preferences: always, only after a touch (where fat-finger slips happen), or never.
import { t } from "./i18n.js";

const KEY = "elfenland.confirm";
export const CONFIRM_MODES = ["always", "touch", "off"];
/** The verbs of each game that commit something for good (drawing a counter or a card is
 * chance anyway, and a pass in a placement or building phase is not final). */
const COMMITS = {
  elfenland: ["place", "obstacle", "move", "go", "end", "discard", "keep"],
  "king-of-the-elves": ["play", "visit", "spell", "gold", "thief", "tree", "sea-monster",
    "remove", "escort", "reverse", "stop", "buy", "discard", "no-town-card", "take"],
  // A bid and a pass can be taken back (and a bid over one's coins is always asked).
  elfengold: ["place", "double", "exchange", "tree", "monster", "gold", "move", "fly", "end",
    "collect", "cards", "discard", "keep"],
};

let lastPointer = "mouse";
window.addEventListener("pointerdown", (ev) => { lastPointer = ev.pointerType || "mouse"; }, true);
window.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") lastPointer = "keyboard"; }, true);

export function confirmMode() {
  const m = localStorage.getItem(KEY);
  return CONFIRM_MODES.includes(m) ? m : "always";
}

export function setConfirmMode(m) {
  if (CONFIRM_MODES.includes(m)) localStorage.setItem(KEY, m);
}

export function needsConfirm(game, text) {
  const mode = confirmMode();
  if (mode === "off" || (mode === "touch" && lastPointer !== "touch")) return false;
  return (COMMITS[game] || []).includes(String(text).split(/\s+/)[0]);
}

let open = null;

/** Close the question (as a "no"), e.g. when the table moved on and the action is gone. */
export function dropConfirm() {
  if (open) open.finish(false);
}

/** The action still asked about, or null. */
export function askedAction() { return open ? open.action : null; }

/** Ask "question" with OK / Cancel; resolves true on OK. Enter confirms, Escape cancels;
 * the dialog takes the focus and gives it back to where it was. */
export function ask(question, action = null) {
  dropConfirm();
  const before = document.activeElement;
  const box = document.createElement("div");
  box.className = "confirm";
  box.setAttribute("role", "alertdialog");
  box.setAttribute("aria-modal", "true");
  box.setAttribute("aria-labelledby", "confirm-text");
  box.innerHTML = `<p id="confirm-text"></p><div class="row">
    <button type="button" class="primary" id="confirm-ok"></button>
    <button type="button" class="secondary" id="confirm-cancel"></button></div>`;
  box.querySelector("#confirm-text").textContent = question;
  box.querySelector("#confirm-ok").textContent = t("confirm.ok");
  box.querySelector("#confirm-cancel").textContent = t("common.cancel");
  document.body.appendChild(box);
  return new Promise((resolve) => {
    const finish = (yes) => {
      if (open !== state) return;
      open = null;
      box.remove();
      if (before && before.isConnected && before.focus) before.focus();
      resolve(yes);
    };
    const state = { finish, action };
    open = state;
    box.addEventListener("click", (ev) => {
      const b = ev.target.closest("button");
      if (b) finish(b.id === "confirm-ok");
    });
    box.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape") { ev.preventDefault(); ev.stopPropagation(); finish(false); }
      if (ev.key === "Tab") { // keep the focus inside the two buttons
        const ok = box.querySelector("#confirm-ok"), no = box.querySelector("#confirm-cancel");
        ev.preventDefault();
        (document.activeElement === ok ? no : ok).focus();
      }
    });
    box.querySelector("#confirm-ok").focus();
  });
}

/** Whether to send a game's action now: true at once when no question is due. */
export function confirmAction(game, text, question) {
  if (!needsConfirm(game, text)) return Promise.resolve(true);
  return ask(question, text);
}

/** The preference as a labelled select, for the table's and the lobby's settings. */
export function confirmPrefHTML(id = "confirm-pref") {
  const m = confirmMode();
  return `<label class="pref"><span>${t("confirm.pref")}</span>
    <select id="${id}" data-pref="confirm">${CONFIRM_MODES.map((k) => `<option value="${k}"${k === m ? " selected" : ""}>${t(`confirm.mode.${k}`)}</option>`).join("")}</select></label>`;
}

/** Wire every confirm-preference select under root. */
export function bindConfirmPref(root) {
  for (const sel of root.querySelectorAll("select[data-pref=confirm]")) {
    sel.addEventListener("change", () => setConfirmMode(sel.value));
  }
}
