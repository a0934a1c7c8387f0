// A game step by step, from the server's replay endpoint: the same board and panels as
// the live table, a slider over the actions, and play/pause. The views are a seat's
// (its hand shown, read-only) or the public one: while the game runs only this browser's
// own seat (its token, or its player's), once it is over any seat (docs/protocol.md, the replay).
import { api, savedSeat } from "./api.js";
import { applyI18n, t } from "./i18n.js";
import { PLAYER_COLOURS, bootIcon, seatClass } from "./icons.js";
import { gameTitle, seatLabel } from "./lobby.js";
import { makeUI } from "./game.js";
import { errorText, showError } from "./notify.js";
import { addReplayEvents } from "./replayevents.js";
import { playerSeat, playerToken } from "./players.js";

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class ReplayPage {
  constructor(app, id) {
    this.app = app;
    this.id = id;
    this.step = 0;
    this.steps = 0;
    /** The step asked for last: the buttons count from it, and only its answer is shown
     * (answers to earlier requests may arrive later, out of order). */
    this.want = 0;
    this.asked = 0;
    this.timer = null;
    this.ui = null;
    this.summary = null;
    this.mine = savedSeat(id);
    /** The seat whose view is shown, or null for the public (spectator's) view. */
    this.seat = null;
  }

  async start() {
    try {
      // The summary first: whose views may be asked for depends on the game's status.
      const { game } = await api.game(this.id);
      this.summary = game;
      // Another device of the seat's player: the player's token opens the seat's view.
      if (!this.mine && playerToken() && game.status !== "finished") {
        this.mine = await playerSeat(this.id);
      }
      const seats = this.seats();
      this.seat = this.mine && seats.includes(this.mine.seat) ? this.mine.seat : null;
      let last;
      try {
        last = await this.fetchStep(null);
      } catch (err) {
        if (this.seat === null || err.code !== "bad-token") throw err;
        this.seat = null; // a token the server no longer knows: the public view
        last = await this.fetchStep(null);
      }
      this.steps = last.steps;
      this.step = last.step;
      this.want = last.step;
      this.app.innerHTML = `<div class="game replay" data-game="${esc(last.view.game)}">
        <section class="board-wrap" id="board"></section>
        <aside class="side">
          <div class="phasebox"><h1 class="replay-title" data-i18n="replay.title"></h1>
            <div class="phase-line"><span id="round"></span> · <strong id="phase"></strong></div>
            <div class="row replay-bar">
              <button type="button" class="secondary icon" data-go="first" data-i18n-title="replay.first"><svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><path d="M3 2h2v12H3z M14 2v12L6 8z" fill="currentColor"/></svg></button>
              <button type="button" class="secondary icon" data-go="prev" data-i18n-title="replay.prev"><svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><path d="M12 2v12L4 8z" fill="currentColor"/></svg></button>
              <button type="button" class="primary" data-go="play" id="play"></button>
              <button type="button" class="secondary icon" data-go="next" data-i18n-title="replay.next"><svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><path d="M4 2v12l8-6z" fill="currentColor"/></svg></button>
              <button type="button" class="secondary icon" data-go="last" data-i18n-title="replay.last"><svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><path d="M11 2h2v12h-2z M2 2v12l8-6z" fill="currentColor"/></svg></button>
            </div>
            <label class="sr" for="step" data-i18n="replay.slider"></label>
            <input type="range" id="step" min="0" max="${this.steps}" value="${this.step}">
            <div id="step-label" class="muted small"></div>
            <div id="last-action" class="hint"></div>
            <label class="pref replay-seat" id="replay-seat-row"><span data-i18n="replay.viewAs"></span>
              <select id="replay-seat"></select></label>
            <p class="small" id="replay-seat-note"></p>
          </div>
          <div id="controls" class="controls" hidden></div>
          <div id="players" class="players"></div>
          <a class="button secondary" href="#/game/${esc(this.id)}" data-i18n="replay.back"></a>
        </aside></div>`;
      applyI18n(this.app);
      this.ui = await makeUI(last.view, this.app.querySelector("#board"),
        this.app.querySelector("#controls"), {
          act: () => {}, names: () => this.names(last.view), seat: null,
          owner: () => (this.seat === null || (this.mine && this.mine.seat === this.seat)
            ? null : this.names(last.view)[this.seat]),
        });
      this.app.querySelector(".replay-bar").addEventListener("click", (ev) => {
        const b = ev.target.closest("[data-go]");
        if (b) this.go(b.dataset.go);
      });
      this.app.querySelector("#step").addEventListener("input", (ev) => { this.pause(); this.load(Number(ev.target.value)); });
      this.app.querySelector("#replay-seat").addEventListener("change", (ev) => {
        this.seat = ev.target.value === "" ? null : Number(ev.target.value);
        this.load(this.want);
      });
      this.renderSeats();
      this.show(last);
      addReplayEvents(this.app.querySelector(".side"), this.id, (step) => this.load(step),
        () => this.names(last.view));
    } catch (err) {
      showError(err);
      this.app.innerHTML = `<section class="card narrow"><p id="replay-error">${esc(errorText(err))}</p>
        <a class="button primary" href="#/" data-i18n="nav.lobby"></a></section>`;
      applyI18n(this.app);
    }
  }

  get finished() { return !!this.summary && this.summary.status === "finished"; }

  /** The seats whose views this page may show: every seat once the game is over, else
   * this browser's own (the server asks for its token). */
  seats() {
    const n = this.summary ? this.summary.players : 0;
    if (this.finished) return Array.from({ length: n }, (_, i) => i);
    return this.mine && this.mine.seat < n ? [this.mine.seat] : [];
  }

  renderSeats() {
    const sel = this.app.querySelector("#replay-seat");
    const seats = this.seats();
    const names = this.summary ? this.names({ num_players: this.summary.players }) : [];
    sel.innerHTML = [`<option value="">${esc(t("replay.public"))}</option>`,
      ...seats.map((s) => `<option value="${s}">${esc(names[s])}${this.mine && this.mine.seat === s ? ` (${esc(t("seat.you"))})` : ""}</option>`)].join("");
    sel.value = this.seat === null ? "" : String(this.seat);
    this.app.querySelector("#replay-seat-row").hidden = !seats.length;
    this.app.querySelector("#replay-seat-note").textContent = seats.length
      ? t(this.finished ? "replay.seatsOver" : "replay.seatsRunning") : "";
  }

  /** The view after ``step`` actions (null: all) as ``this.seat`` saw it. */
  fetch(step) {
    const seat = this.seat;
    if (seat === null) return api.replay(this.id, step);
    const token = !this.finished && this.mine && this.mine.seat === seat ? this.mine.token : undefined;
    return api.replay(this.id, step, seat, token);
  }

  /** A step's view, and for King of the Elves' last one the view before it too: the
   * game ends by clearing the table, which the table shows as the last round left it,
   * so it must have seen that round's end (not whatever step was shown before). */
  async fetchStep(step) {
    const r = await this.fetch(step);
    if (r.view.game === "king-of-the-elves" && r.view.scores && r.step > 0) {
      r.before = (await this.fetch(r.step - 1)).view;
    }
    return r;
  }

  names(view) {
    const seats = this.summary ? this.summary.seats : [];
    return Array.from({ length: view.num_players }, (_, i) => (seats[i] ? seatLabel(seats[i]) : t("seat.n", { n: i + 1 })));
  }

  async load(step) {
    const ask = ++this.asked;
    this.want = step;
    try {
      const r = await this.fetchStep(step);
      if (ask === this.asked) this.show(r);
    } catch (err) {
      if (ask !== this.asked) return;
      showError(err);
      this.pause();
    }
  }

  go(what) {
    if (what === "play") { if (this.timer) this.pause(); else this.play(); return; }
    this.pause();
    const target = { first: 0, prev: this.want - 1, next: this.want + 1, last: this.steps }[what];
    this.load(Math.max(0, Math.min(this.steps, target)));
  }

  play() {
    if (this.want >= this.steps) this.want = 0;
    const tick = async () => {
      if (this.want >= this.steps) { this.pause(); return; }
      await this.load(this.want + 1);
      if (this.timer) this.timer = setTimeout(tick, 450);
    };
    this.timer = setTimeout(tick, 10);
    this.playLabel();
  }

  pause() { clearTimeout(this.timer); this.timer = null; this.playLabel(); }

  show(r) {
    this.step = r.step;
    this.steps = r.steps;
    this.view = r.view;
    // Read-only: nothing is offered, whoever was to act.
    const still = (view) => { const { legal, route_costs: costs, ...rest } = view; return rest; };
    if (r.before) this.ui.update(still(r.before));
    this.ui.update(still(r.view));
    const v = r.view;
    this.app.querySelector("#controls").hidden = v.viewer === null || v.viewer === undefined;
    this.app.querySelector("#round").textContent = t("status.round", { n: v.round, total: v.rounds });
    this.app.querySelector("#phase").textContent = v.scores ? t("phase.over") : this.ui.phaseName();
    this.app.querySelector("#step").value = String(r.step);
    this.app.querySelector("#step").max = String(r.steps);
    this.app.querySelector("#step-label").textContent = t("replay.step", { n: r.step, total: r.steps });
    const log = v.log || [];
    const lastEntry = log[log.length - 1];
    this.app.querySelector("#last-action").textContent = lastEntry ? this.ui.describe(lastEntry) : "";
    const names = this.names(v);
    this.app.querySelector("#players").innerHTML = v.players.map((p) => `<div class="panel ${seatClass(p.seat)}${v.current_player === p.seat ? " turn" : ""}"><div class="pname">${bootIcon(PLAYER_COLOURS[p.seat % 6], 18)}
      <span class="nm">${esc(names[p.seat])}</span></div>${this.ui.panelHTML(p)}</div>`).join("");
    document.getElementById("status").textContent = `${gameTitle(v.game)} · ${t("replay.title")}`;
    this.last = r;
    this.playLabel();
  }

  relabel() {
    applyI18n(this.app);
    if (this.summary) this.renderSeats();
    if (this.last) this.show(this.last);
  }

  playLabel() {
    const play = this.app.querySelector("#play");
    if (play) play.textContent = this.timer ? t("replay.pause") : t("replay.play");
  }

  destroy() { this.pause(); }
}
