// Hotseat: several seats played from this device. The lobby asks the server for a
// token per human seat; at the table, when the turn passes to another of this device's
// seats, a cover hides the board (and the last player's hand) until the next player
// says they hold the device, then the page switches to that seat.
import { saveSeat } from "./api.js";
import { t } from "./i18n.js";
import { openDialog } from "./dialog.js";

const KEY = "elfenland.hotseat";

function all() {
  try { return JSON.parse(localStorage.getItem(KEY) || "{}"); } catch { return {}; }
}

export function hotseatSeats(gameId) { return all()[gameId] || null; }

export function saveHotseat(gameId, seats) {
  const a = all();
  a[gameId] = seats;
  localStorage.setItem(KEY, JSON.stringify(a));
}

export function hotseatFieldHTML() {
  return `<label class="check hotseat-opt"><input type="checkbox" name="hotseat">
    <span data-i18n="hotseat.option"></span></label>`;
}

/** With the box ticked, the open seats are played here too (human seats with tokens). */
export function applyHotseat(form, body) {
  if (!form.hotseat || !form.hotseat.checked) return;
  body.hotseat = true;
  const creator = body.seats.findIndex((x) => x.kind === "human");
  body.seats = body.seats.map((s, i) => {
    if (s.kind !== "open" && s.kind !== "human") return s;
    const field = form.querySelector(`[data-seatname="${i}"]`);
    const name = i === creator ? body.name : (field && field.value.trim()) || null;
    return { kind: "human", name };
  });
}

export function afterCreate(res) {
  if (res.hotseat) saveHotseat(res.game.id, res.hotseat);
}

export class HotseatCover {
  constructor(page) {
    this.page = page;
    this.seats = hotseatSeats(page.id);
    this.cover = null;
    this.waitingFor = null;
  }

  get active() { return !!(this.seats && this.seats.length > 1); }

  /** After each rendered view: cover the table if another of our seats is to act. */
  check(view) {
    if (!this.active) return;
    const cur = view.current_player;
    const mine = this.seats.find((s) => s.seat === cur);
    // A view of another of our seats is never left uncovered: until the new seat's view
    // comes, the table shows the last seat's hand.
    if (view.viewer !== this.page.seat && this.cover) return;
    if (cur === null || cur === undefined || !mine || cur === this.page.seat) {
      this.hide();
      return;
    }
    if (this.waitingFor === cur) return;
    this.show(mine);
  }

  show(next) {
    this.hide();
    this.waitingFor = next.seat;
    const name = this.page.names()[next.seat] || "";
    const box = document.createElement("div");
    box.className = "hotseat-cover";
    const p = document.createElement("p");
    p.id = "hotseat-title";
    p.textContent = t("hotseat.pass", { name });
    const b = document.createElement("button");
    b.type = "button";
    b.className = "primary big";
    b.id = "hotseat-go";
    b.textContent = t("hotseat.ready", { name });
    b.addEventListener("click", () => this.switchTo(next));
    box.append(p, b);
    this.page.app.appendChild(box);
    // The cover keeps the table hidden: Escape does not lift it, the button does.
    openDialog(box, "hotseat-title", { focus: "#hotseat-go", onEscape: () => {} });
    this.cover = box;
  }

  hide() {
    if (this.cover) this.cover.remove();
    this.cover = null;
    this.waitingFor = null;
  }

  switchTo(next) {
    const page = this.page;
    saveSeat(page.id, next.seat, next.token, "");
    page.mine = { seat: next.seat, token: next.token, name: "" };
    // The table under the cover is still the last seat's (its hand): the cover stays,
    // without its button, until the new seat's own view is shown (``check`` lifts it).
    const go = this.cover && this.cover.querySelector("#hotseat-go");
    if (go) go.remove();
    this.waitingFor = next.seat;
    if (page.conn) page.conn.close();
    // Updates the last seat's socket delivered and the pacer still holds are that seat's
    // views: shown after the new seat's (same seq), they would hide its turn.
    page.pacer.clear();
    page.log = [];
    page.latest = null;
    page.connect();
  }
}
