// A game step by step, from the server's replay endpoint: the same board and panels as
// the live table, a slider over the actions, and play/pause.
import { api, savedSeat } from "./api.js";
import { applyI18n, t } from "./i18n.js";
import { PLAYER_COLOURS, bootIcon, seatClass } from "./icons.js";
import { gameTitle, seatLabel } from "./lobby.js";
import { makeUI } from "./game.js";
import { showError } from "./notify.js";
import { addReplayEvents } from "./replayevents.js";

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class ReplayPage {
  constructor(app, id) {
    this.app = app;
    this.id = id;
    this.step = 0;
    this.steps = 0;
    this.timer = null;
    this.ui = null;
    this.summary = null;
  }

  async start() {
    try {
      const [{ game }, last] = await Promise.all([api.game(this.id), this.fetch(null)]);
      this.summary = game;
      this.steps = last.steps;
      this.step = last.step;
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
          </div>
          <div id="controls" class="controls" hidden></div>
          <div id="players" class="players"></div>
          <a class="button secondary" href="#/game/${esc(this.id)}" data-i18n="replay.back"></a>
        </aside></div>`;
      applyI18n(this.app);
      this.ui = await makeUI(last.view, this.app.querySelector("#board"),
        this.app.querySelector("#controls"), { act: () => {}, names: () => this.names(last.view), seat: null });
      this.app.querySelector(".replay-bar").addEventListener("click", (ev) => {
        const b = ev.target.closest("[data-go]");
        if (b) this.go(b.dataset.go);
      });
      this.app.querySelector("#step").addEventListener("input", (ev) => this.load(Number(ev.target.value)));
      this.show(last);
      addReplayEvents(this.app.querySelector(".side"), this.id, (step) => this.load(step),
        () => this.names(last.view));
    } catch (err) {
      showError(err);
      this.app.innerHTML = `<section class="card narrow"><p>${esc(err.message)}</p>
        <a class="button primary" href="#/" data-i18n="nav.lobby"></a></section>`;
      applyI18n(this.app);
    }
  }

  fetch(step) {
    const mine = savedSeat(this.id);
    return mine && this.summary && this.summary.status !== "finished"
      ? api.replay(this.id, step, mine.seat, mine.token) : api.replay(this.id, step);
  }

  names(view) {
    const seats = this.summary ? this.summary.seats : [];
    return Array.from({ length: view.num_players }, (_, i) => (seats[i] ? seatLabel(seats[i]) : t("seat.n", { n: i + 1 })));
  }

  async load(step) {
    try { this.show(await this.fetch(step)); } catch (err) { showError(err); this.pause(); }
  }

  go(what) {
    if (what === "play") { if (this.timer) this.pause(); else this.play(); return; }
    this.pause();
    const target = { first: 0, prev: this.step - 1, next: this.step + 1, last: this.steps }[what];
    this.load(Math.max(0, Math.min(this.steps, target)));
  }

  play() {
    if (this.step >= this.steps) this.step = 0;
    const tick = async () => {
      if (this.step >= this.steps) { this.pause(); return; }
      await this.load(this.step + 1);
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
    this.ui.update(r.view);
    const v = r.view;
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
    if (this.last) this.show(this.last);
  }

  playLabel() {
    const play = this.app.querySelector("#play");
    if (play) play.textContent = this.timer ? t("replay.pause") : t("replay.play");
  }

  destroy() { this.pause(); }
}
