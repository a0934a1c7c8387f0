// Following the other players and the bots: their moves can be slowed down at this table
// (the page holds their updates back; the server and the others are not slowed), the last
// move stays marked on the board and in the log, and a short summary closes each round.
import { t, tn } from "./i18n.js";

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Milliseconds shown at least between two moves of other players, by setting. */
export const PACES = { server: 0, slow: 1500, slower: 3000 };
/** A first table shows the others' moves at a pace one can follow (the bots play at
 * once); the player's choice is remembered for their next tables on this device. */
export const DEFAULT_PACE = "slow";
const KEY = "elfenland.pace";

export function paceOf() {
  const p = localStorage.getItem(KEY);
  return p in PACES ? p : DEFAULT_PACE;
}

export function setPace(p) {
  if (p in PACES) localStorage.setItem(KEY, p);
}

export function pacePrefHTML() {
  const cur = paceOf();
  return `<label class="pref"><span>${esc(t("pace.label"))}</span>
    <select id="pace-pref">${Object.keys(PACES).map((k) => `<option value="${k}"${k === cur ? " selected" : ""}>${esc(t(`pace.${k}`))}</option>`).join("")}</select></label>`;
}

/** Applies the socket's updates in order, holding back those that show another player's
 * move until the chosen time has passed since the last one. */
export class Pacer {
  constructor(apply, gameId, seat) {
    this.apply = apply;
    this.gameId = gameId;
    this.seat = seat; // a function: this page's seat now
    this.queue = [];
    this.busy = false;
    this.last = 0;
    /** Bumped by ``clear``: an update held back before it is never shown after. */
    this.generation = 0;
  }

  /** Forget the updates held back (the page now follows another seat's socket). */
  clear() {
    this.queue = [];
    this.generation += 1;
  }

  push(m) {
    this.queue.push(m);
    if (!this.busy) this.drain();
  }

  delayFor(m) {
    const others = (m.log || []).some((e) => e.player !== null && e.player !== undefined
      && e.player !== this.seat());
    return others && (m.log || []).length <= 3 ? PACES[paceOf()] : 0;
  }

  async drain() {
    this.busy = true;
    try {
      while (this.queue.length) {
        const gen = this.generation;
        const m = this.queue[0];
        const d = this.delayFor(m);
        const wait = this.last + d - Date.now();
        if (d && wait > 0) await new Promise((r) => { setTimeout(r, wait); });
        if (gen !== this.generation) continue; // cleared while it waited
        this.queue.shift();
        await this.apply(m);
        if (d) this.last = Date.now();
      }
    } finally {
      this.busy = false;
    }
  }
}

/** "+5 gold, −2 gold" with the zero parts left out. */
export function goldText(earned, paid) {
  return [earned ? t("gold.plus", { n: earned }) : "", paid ? t("gold.minus", { n: paid }) : ""]
    .filter(Boolean).join(", ");
}

/** The end of each round in a few lines: what each player gained in it. */
export class RoundSummary {
  constructor() {
    this.start = null; // {round, towns: [n per seat], seq}
  }

  /** Called with each view shown and the whole log; returns the summary HTML of a round
   * that has just ended, or null. */
  check(view, log, names) {
    const towns = (view.players || []).map((p) => (p.towns || []).length);
    const over = !!view.scores;
    if (!this.start) {
      // A table opened in the middle of a round cannot sum that round up.
      const atStart = (view.seq ?? 0) === 0 || (view.game === "elfenland" && view.phase === "draw-secret");
      this.start = { round: view.round, towns, seq: view.seq ?? 0, partial: !atStart || over, done: over };
      return null;
    }
    if (view.round === this.start.round && !over) return null;
    if (this.start.done) return null;
    const was = this.start;
    if (was.partial) {
      this.start = { round: view.round, towns, seq: view.seq ?? 0, done: over };
      return null;
    }
    const entries = log.filter((e) => e.seq > was.seq && e.seq <= (view.seq ?? 0));
    const lines = (view.players || []).map((p) => {
      if (view.game === "elfenland") {
        return tn("summary.towns", towns[p.seat] - (was.towns[p.seat] ?? 0), { name: names[p.seat], total: towns[p.seat] });
      }
      if (view.game === "elfengold") {
        // Towns gained and the gold the moves earned (collected, or given up for cards).
        let coins = 0;
        for (const e of entries) if (e.player === p.seat && String(e.action) === "collect") coins += e.coins ?? 0;
        return [tn("summary.towns", towns[p.seat] - (was.towns[p.seat] ?? 0), { name: names[p.seat], total: towns[p.seat] }),
          tn("summary.coins", coins)].join(", ");
      }
      let earned = 0, paid = 0, visits = 0;
      for (const e of entries) {
        if (e.player !== p.seat) continue;
        const verb = String(e.action).split(/\s+/)[0];
        if (verb === "visit" || verb === "spell") visits += 1;
        if (verb === "stop") { earned += e.earned ?? 0; paid += e.paid ?? 0; }
      }
      return [tn("summary.journey", visits, { name: names[p.seat] }), goldText(earned, paid)].filter(Boolean).join(", ");
    });
    this.start = over ? { ...was, done: true } : { round: view.round, towns, seq: view.seq ?? 0 };
    return `<div class="round-summary" id="round-summary" role="status">
      <strong>${esc(t("summary.title", { n: was.round }))}</strong>
      <ul>${lines.map((l) => `<li>${esc(l)}</li>`).join("")}</ul>
      <button type="button" class="link" id="round-summary-close">${esc(t("aid.close"))}</button></div>`;
  }
}
