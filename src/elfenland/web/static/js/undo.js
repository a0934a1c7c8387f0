// "Take back": offered to a seated player while the game's last action is theirs. The
// server decides whether it may be taken back (nothing drawn at random, nothing hidden
// shown, no other player acted since) and says why not otherwise.
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

  /** Show the button when the last action of `log` is `seat`'s and the game runs. */
  update(view, log, seat, botted) {
    const last = log.length ? log[log.length - 1] : null;
    const over = view.current_player === null || view.current_player === undefined;
    this.btn.hidden = !(last && seat !== null && last.player === seat && !over && !botted);
    this.btn.disabled = false;
  }
}
