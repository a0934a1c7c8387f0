// "Take back": offered only when the engine says the seat may take its last action back
// (the view's `take_back`: the action is still the game's last and showed nothing new,
// no draw, no deal). The server asks the same engine, so the button never lies.
import { t } from "./i18n.js";

export class UndoButton {
  constructor(el, { undo }) {
    this.el = el;
    this.undo = undo; // () => bool (false when offline)
    el.innerHTML = `<button type="button" class="secondary small" id="undo-btn" hidden></button>`;
    this.btn = el.querySelector("#undo-btn");
    this.btn.addEventListener("click", () => {
      this.btn.disabled = true;
      if (!this.undo()) this.btn.disabled = false;
    });
    this.relabel();
  }

  relabel() {
    this.btn.textContent = t("undo.button");
    this.btn.title = t("undo.help");
  }

  /** Show the button when the engine says `seat` may take back the last action. */
  update(view, seat, botted) {
    const mine = seat !== null && seat !== undefined && view.take_back === seat;
    this.btn.hidden = !(mine && !botted);
    this.btn.disabled = false;
  }
}
