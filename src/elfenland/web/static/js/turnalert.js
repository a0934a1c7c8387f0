// "Your turn": when this seat's turn comes, a browser notification if the tab is hidden
// (and the player allowed notifications), and a badge in the tab's title otherwise
// (the title itself says "• Your turn"; the badge counts turns missed while away).
import { t } from "./i18n.js";

export class TurnAlert {
  constructor(el, gameId) {
    this.gameId = gameId;
    this.mine = false;
    this.missed = 0;
    this.el = el;
    this.onVisible = () => { if (!document.hidden) { this.missed = 0; this.badge(); } };
    document.addEventListener("visibilitychange", this.onVisible);
    this.renderAsk();
  }

  /** A button to allow notifications, while the browser has not been asked yet. */
  renderAsk() {
    if (!this.el) return;
    this.el.textContent = "";
    if (!("Notification" in window) || Notification.permission !== "default") return;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "link";
    b.id = "notify-ask";
    b.textContent = t("notify.ask");
    b.addEventListener("click", async () => {
      try { await Notification.requestPermission(); } catch { /* the browser said no */ }
      this.renderAsk();
    });
    this.el.appendChild(b);
  }

  /** Called with each rendered view: alerts once when the turn becomes this seat's. The
   * badge is put back every time: each render writes the tab's title afresh. */
  update(myTurn, gameTitle) {
    const began = myTurn && !this.mine;
    this.mine = myTurn;
    if (began && document.hidden) {
      this.missed += 1;
      if ("Notification" in window && Notification.permission === "granted") {
        try {
          const n = new Notification(t("notify.title"), {
            body: t("notify.body", { game: gameTitle }), tag: `elfenland-${this.gameId}`,
          });
          n.onclick = () => { window.focus(); n.close(); };
        } catch { /* some browsers only notify from a service worker */ }
      }
    }
    this.badge();
  }

  badge() {
    const base = document.title.replace(/^\(\d+\) /, "");
    document.title = this.missed ? `(${this.missed}) ${base}` : base;
  }

  relabel() { this.renderAsk(); }

  destroy() { document.removeEventListener("visibilitychange", this.onVisible); }
}
