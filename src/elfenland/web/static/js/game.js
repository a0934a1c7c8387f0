// One game's page: the waiting room until it starts, then the table (board or cards,
// controls, player panels, help, log) kept live by the game socket, then the scores.
import { api, forgetSeat, saveName, saveSeat, savedName, savedSeat } from "./api.js";
import { GameConnection } from "./conn.js";
import { applyI18n, currentLang, has, t } from "./i18n.js";
import { PLAYER_COLOURS, bootIcon, seatClass, seatShapeIcon } from "./icons.js";
import { BOT_LEVELS, gameTitle, rulesLabel, seatLabel } from "./lobby.js";
import { showError, toast } from "./notify.js";
import { ChatBox } from "./chat.js";
import { ClockView } from "./clock.js";
import { UndoButton } from "./undo.js";
import { TurnAlert } from "./turnalert.js";
import { openDialog } from "./dialog.js";
import { Guide, isTutorial } from "./guide.js";
import { playerSeat, playerToken } from "./players.js";
import { HotseatCover } from "./hotseat.js";
import { Pacer, RoundSummary, pacePrefHTML, setPace } from "./follow.js";
import { askedAction, bindConfirmPref, confirmAction, confirmPrefHTML, dropConfirm } from "./confirm.js";

/** The starting player's marker: a flag and a word, unlike the seat numbers. */
const START_FLAG = `<svg viewBox="0 0 12 14" width="10" height="12" aria-hidden="true" focusable="false"><path d="M2 1v12" stroke="currentColor" stroke-width="1.6"/><path d="M3 1.5h7l-2 2.5 2 2.5H3z" fill="currentColor"/></svg>`;
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const mapCache = new Map();

/** The board, fetched once. A table's page starts it before it knows which game the
 * table plays (main.js), so that the board arrives with the table's first view; a
 * failed fetch is forgotten, so that the next page asks again. */
export function loadMap(game = "elfenland") {
  if (!mapCache.has(game)) {
    const pending = api.map(game);
    pending.catch(() => mapCache.delete(game));
    mapCache.set(game, pending);
  }
  return mapCache.get(game);
}

export async function makeUI(view, boardEl, controlsEl, ctx) {
  if (view.game === "elfenland") {
    const { ElfenlandUI } = await import("./elfenland.js");
    return new ElfenlandUI(boardEl, controlsEl, { ...ctx, map: await loadMap("elfenland") });
  }
  if (view.game === "elfengold") {
    const { ElfengoldUI } = await import("./elfengold.js");
    return new ElfengoldUI(boardEl, controlsEl, { ...ctx, map: await loadMap("elfenland") });
  }
  const { KingUI } = await import("./kingelves.js");
  return new KingUI(boardEl, controlsEl, ctx);
}

export class GamePage {
  constructor(app, id) {
    this.app = app;
    this.id = id;
    this.mine = savedSeat(id);
    this.summary = null;
    this.view = null;
    this.log = [];
    this.ui = null;
    this.uiGame = null;
    this.conn = null;
    this.poll = null;
    this.pending = false;
    this.finalShown = false;
    this.pacer = new Pacer((m) => this.onUpdate(m), id, () => this.seat);
    this.rounds = new RoundSummary();
  }

  get seat() { return this.mine ? this.mine.seat : null; }

  async start() {
    // No seat token for this table here, but a player: another device of the player (a
    // turn notice's link, "Your games") sits at the player's own seat, whose credential
    // the player's token is as well (docs/protocol.md).
    if (!this.mine && playerToken()) this.mine = await playerSeat(this.id);
    if (this.destroyed) return;
    // The socket opens at once: its view often arrives before the HTTP answer.
    this.connect();
    try {
      const { game, view } = await api.game(this.id);
      if (!this.summary) this.summary = game;
      if (game.status === "open") this.renderWaiting();
      else {
        this.latest = this.latest || view;
        await this.ensureTable(view);
        if (!this.view) this.render(this.latest);
      }
    } catch (err) {
      // The server's message is English: other languages say the error code's text.
      const key = err && err.code && has(`error.${err.code}`) ? `error.${err.code}` : "error.unknown";
      const why = currentLang() === "en" && err && err.message ? err.message : t(key);
      this.app.innerHTML = `<section class="card narrow"><h1 data-i18n="game.notFound"></h1>
        <p>${esc(why)}</p><a class="button primary" href="#/" data-i18n="nav.lobby"></a></section>`;
      applyI18n(this.app);
      if (this.conn) this.conn.close();
      return;
    }
  }

  connect() {
    // A socket this page has replaced (a hotseat table handing the device to another
    // seat) speaks for the seat it was opened for: nothing it still delivers is shown.
    let conn = null;
    const live = (f) => (...args) => (this.conn === conn ? f(...args) : undefined);
    conn = new GameConnection(this.id, this.mine ? this.mine.token : null, Object.fromEntries(Object.entries({
      hello: (m) => {
        this.summary = m.game;
        if (this.mine && m.seat !== this.mine.seat && m.seat !== null && m.seat !== undefined) {
          this.mine.seat = m.seat;
        }
        this.onSummary();
      },
      lobby: (m) => { this.summary = m.game; this.onSummary(); },
      update: (m) => this.pacer.push(m),
      events: (list) => { this.events = list; if (this.chat) this.chat.setAll(list); },
      // Taken back while away: the entries after `since` come again (conn.js).
      rewind: (since) => { this.log = this.log.filter((e) => e.seq <= since); },
      event: (e) => this.onEvent(e),
      error: (m) => {
        this.pending = false;
        this.lastError = { code: m.code, message: m.message }; // what a failing test reports
        if (m.code === "bad-token") {
          forgetSeat(this.id);
          this.mine = null;
          this.conn.token = null;
        }
        if (m.code !== "stale") showError(m);
      },
      status: (s) => this.setConn(s),
    }).map(([k, f]) => [k, live(f)])));
    this.conn = conn;
    if (this.mine && this.mine.player) this.conn.seat = this.mine.seat;
    this.conn.open();
    window.__elfenland = { page: this, conn: this.conn };
  }

  setConn(s) {
    const el = document.getElementById("conn");
    el.hidden = s === "online";
    el.className = `conn ${s}`;
    el.textContent = t(`conn.${s}`);
    el.dataset.state = s;
  }

  names() {
    const seats = this.summary ? this.summary.seats : [];
    const n = this.view ? this.view.num_players : seats.length;
    return Array.from({ length: n }, (_, i) => {
      const s = seats[i];
      const base = s ? seatLabel(s) : t("seat.n", { n: i + 1 });
      return i === this.seat ? `${base} (${t("seat.you")})` : base;
    });
  }

  onSummary() {
    if (!this.summary) return;
    if (this.summary.status === "open") {
      if (!this.tablePromise) this.renderWaiting();
    } else if (!this.tablePromise) {
      api.game(this.id).then(async ({ view }) => {
        if (!this.latest || (view.seq ?? 0) > (this.latest.seq ?? 0)) this.latest = view;
        await this.ensureTable(view);
        if (!this.view) this.render(this.latest);
      }).catch(showError);
    } else if (this.ui && this.latest && this.view) {
      // Seats changed: a bot may have taken or given back this page's seat.
      this.render(this.latest);
    }
  }

  /** Whether a bot plays this page's seat now (until its player takes it back). */
  botted() {
    const s = this.summary && this.seat !== null ? this.summary.seats[this.seat] : null;
    return !!(s && s.kind === "bot");
  }

  // ----- waiting room ---------------------------------------------------------------
  renderWaiting() {
    if (this.tablePromise) return;
    const g = this.summary;
    const link = `${location.origin}/#/game/${g.id}`;
    const seated = this.seat !== null;
    // A table with no open seat (you and bots, or a hotseat table) waits for nobody:
    // no link to share, no bots to add, no Start; it starts by itself.
    const open = g.seats.some((s) => s.kind === "open");
    // The room is drawn again on every change and poll: what a visitor is typing or has
    // chosen stays as it is, focus and caret included.
    const kept = keepFields(this.app, ["join-name", "fill-level"]);
    this.app.innerHTML = `<section class="card narrow waiting">
      <h1>${esc(gameTitle(g.game))} <span class="muted small">${esc(rulesLabel(g))}</span></h1>
      <p data-i18n="${open ? "wait.text" : "wait.starting"}"></p>
      ${open ? `<label class="share"><span data-i18n="wait.share"></span>
        <span class="share-row"><input id="share-link" readonly value="${esc(link)}">
        <button type="button" class="secondary" id="copy-link" data-i18n="wait.copy"></button></span></label>` : ""}
      <ol class="seat-list">${g.seats.map((s) => `<li class="seat-item ${s.kind}">
        <span class="swatch ${seatClass(s.seat)}"></span>
        <span>${esc(seatLabel(s))}${s.seat === this.seat ? ` <b>(${esc(t("seat.you"))})</b>` : ""}</span>
        ${s.kind === "open" && !seated ? `<button type="button" class="primary" data-join="${s.seat}" data-i18n="wait.takeSeat"></button>` : ""}
      </li>`).join("")}</ol>
      ${!seated ? `<label><span data-i18n="lobby.yourName"></span>
        <input id="join-name" maxlength="40" value="${esc(savedName())}" data-i18n-placeholder="lobby.namePlaceholder"></label>` : ""}
      ${seated && !open ? "" : seated ? `<div class="row"><label><span data-i18n="wait.fill"></span>
        <select id="fill-level">${BOT_LEVELS.map((l) => `<option value="${l}"${l === "greedy" ? " selected" : ""} data-i18n="level.${l}"></option>`).join("")}</select></label>
        <button type="button" class="primary big" id="start-btn" data-i18n="wait.start"></button></div>` : `<p class="muted" data-i18n="wait.spectator"></p>`}
    </section>`;
    applyI18n(this.app);
    kept();
    document.getElementById("status").textContent = t("status.open");
    if (seated && !open && !this.autoStarted) {
      this.autoStarted = true;
      api.start(this.id, { token: this.mine.token })
        .then((s) => { this.summary = s; this.onSummary(); })
        .catch((err) => { if (err.code !== "already-started") showError(err); });
    }
    const copy = this.app.querySelector("#copy-link");
    if (copy) copy.addEventListener("click", async () => {
      const input = this.app.querySelector("#share-link");
      input.select();
      try { await navigator.clipboard.writeText(input.value); } catch { document.execCommand("copy"); }
      toast(t("wait.copied"), "info");
    });
    for (const b of this.app.querySelectorAll("[data-join]")) {
      b.addEventListener("click", () => this.join(Number(b.dataset.join)));
    }
    const startBtn = this.app.querySelector("#start-btn");
    if (startBtn) {
      startBtn.addEventListener("click", async () => {
        startBtn.disabled = true;
        try {
          this.summary = await api.start(this.id, {
            token: this.mine.token, fill: this.app.querySelector("#fill-level").value,
          });
          this.onSummary();
        } catch (err) {
          showError(err);
          startBtn.disabled = false;
        }
      });
    }
    clearTimeout(this.poll);
    this.poll = setTimeout(async () => {
      try {
        const { game } = await api.game(this.id);
        this.summary = game;
        this.onSummary();
      } catch { /* the socket or the next poll will tell */ }
    }, 3000);
  }

  async join(seat) {
    const input = this.app.querySelector("#join-name");
    const name = input ? input.value.trim() : "";
    if (name) saveName(name);
    try {
      const res = await api.join(this.id, { name: name || null, seat, player: playerToken() });
      saveSeat(this.id, res.seat, res.token, name);
      this.mine = savedSeat(this.id);
      this.summary = res.game;
      if (this.conn) this.conn.close();
      this.renderWaiting();
      this.connect();
    } catch (err) {
      showError(err);
    }
  }

  // ----- the table --------------------------------------------------------------------
  /** Build the table once, however many updates arrive while it is being built. */
  ensureTable(view) {
    if (!this.tablePromise) this.tablePromise = this.buildTable(view);
    return this.tablePromise;
  }

  async buildTable(view) {
    clearTimeout(this.poll);
    this.app.innerHTML = `<div class="game" data-game="${esc(view.game)}">
      <h1 class="sr" id="table-title">${esc(gameTitle(view.game))}</h1>
      <section class="board-wrap" id="board" aria-labelledby="table-title"></section>
      <aside class="side">
        <div class="side-main">
        <div class="phasebox">
          <div class="phase-line"><span id="round"></span> · <strong id="phase"></strong></div>
          <div id="turn" class="turn"></div>
          <p id="help" class="help"></p>
          <div id="clock" class="clock" hidden></div>
          <div id="undo-box" class="undo-box"></div>
          <div id="notify-box" class="notify-box"></div>
        </div>
        <div id="controls" class="controls"></div>
        <div id="players" class="players"></div>
        <div id="chat"></div>
        <details class="prefs" id="prefs"><summary data-i18n="prefs.title"></summary><div id="prefs-body"></div></details>
        </div>
        <details class="logbox" open><summary data-i18n="log.title"></summary><ol id="log" class="log" tabindex="0"></ol></details>
      </aside>
    </div>`;
    applyI18n(this.app);
    this.renderPrefs();
    this.ui = await makeUI(view, this.app.querySelector("#board"), this.app.querySelector("#controls"), {
      act: (text) => this.act(text),
      send: (text) => this.send(text),
      confirm: (text, question) => confirmAction(this.view ? this.view.game : "", text, question),
      hint: () => api.hint(this.id, this.mine ? this.mine.token : "",
        this.mine && this.mine.player ? this.mine.seat : null),
      // Offered only at a table created with route hints (an unrated one).
      hintOn: () => !!(this.summary && this.summary.route_hint),
      names: () => this.names(),
      seat: this.seat,
      lastEntry: () => this.log[this.log.length - 1] || null,
    });
    this.addTableExtras();
    applyI18n(this.app);
  }

  /** The clock and the table talk (chat and the clock's events) beside the board. */
  addTableExtras() {
    this.clockView = new ClockView(this.app.querySelector("#clock"), () => this.names());
    if (this.clockData) this.clockView.set(this.clockData);
    this.chat = new ChatBox(this.app.querySelector("#chat"), {
      send: (text, name) => {
        if (this.conn && this.conn.chat(text, name)) return true;
        toast(t("conn.offline"), "error");
        return false;
      },
      names: () => this.names(),
      spectator: this.seat === null,
    });
    this.chat.setAll(this.events || []);
    this.hotseat = new HotseatCover(this);
    this.turnAlert = new TurnAlert(this.app.querySelector("#notify-box"), this.id);
    this.undoButton = new UndoButton(this.app.querySelector("#undo-box"), {
      undo: () => {
        if (this.conn && this.conn.undo()) return true;
        toast(t("conn.offline"), "error");
        return false;
      },
    });
  }

  onEvent(e) {
    this.events = (this.events || []).concat([e]);
    if (this.chat) this.chat.add(e);
    if (e.kind === "timeout" && this.chat) toast(this.chat.line(e), "info");
  }

  async onUpdate(m) {
    const view = m.view;
    // Entries past the update's seq were taken back (undo): the socket's view is the truth.
    const undone = this.log.length && this.log[this.log.length - 1].seq > m.seq;
    if (undone) {
      this.log = this.log.filter((e) => e.seq <= m.seq);
      this.latest = view;
    }
    for (const e of m.log || []) {
      if (!this.log.length || e.seq > this.log[this.log.length - 1].seq) this.log.push(e);
    }
    this.pending = false;
    if (m.clock) {
      this.clockData = m.clock;
      if (this.clockView) this.clockView.set(m.clock);
    }
    if (!this.latest || (view.seq ?? 0) >= (this.latest.seq ?? 0)) this.latest = view;
    // Views come before the start too; the table waits until the game runs.
    if (!this.summary || this.summary.status === "open") return;
    await this.ensureTable(view);
    // Handed to another seat meanwhile (hotseat): its own socket brings its view.
    if (this.latest) this.render(this.latest);
  }

  render(view) {
    // While a bot plays this seat the server refuses its actions: offer none.
    this.view = this.botted() && view.legal ? { ...view, legal: [] } : view;
    const asked = askedAction();
    if (asked && !(this.view.legal || []).includes(asked)) dropConfirm();
    this.ui.update(this.view);
    this.renderStatus();
    this.renderPanels();
    this.renderLog();
    if (this.undoButton) this.undoButton.update(view, this.seat, this.botted());
    if (this.hotseat) this.hotseat.check(view);
    if (!this.guide && isTutorial(this.id)) this.guide = new Guide(this);
    if (this.guide) this.guide.update(this.view);
    if (this.turnAlert) {
      const v = this.view;
      const live = v.current_player !== null && v.current_player !== undefined;
      this.turnAlert.update(live && v.current_player === v.viewer && !this.botted(), gameTitle(v.game));
      // "Tell me when it is my turn" only to a player whose turns are still to come.
      this.app.querySelector("#notify-box").hidden = this.seat === null || !live;
    }
    this.renderRoundSummary();
    if (view.scores && !this.finalShown) this.showFinal();
    document.body.dataset.seq = String(view.seq ?? "");
  }

  renderStatus() {
    const v = this.view;
    const names = this.names();
    const over = v.current_player === null || v.current_player === undefined;
    this.app.querySelector("#round").textContent = t("status.round", { n: v.round, total: v.rounds });
    this.app.querySelector("#phase").textContent = over ? t("phase.over") : this.ui.phaseName();
    const turn = this.app.querySelector("#turn");
    const myTurn = !over && v.current_player === v.viewer && !this.botted();
    turn.textContent = over ? t("status.finished") : myTurn ? t("status.yourTurn")
      : t("status.waitingFor", { name: names[v.current_player] });
    turn.classList.toggle("mine", myTurn);
    // The replay stays at hand once the final scores' dialog is closed.
    if (over && !this.app.querySelector("#replay-again")) {
      turn.insertAdjacentHTML("afterend", `<a class="button secondary" id="replay-again"
        href="#/replay/${esc(this.id)}" data-i18n="final.replay">${esc(t("final.replay"))}</a>`);
    }
    this.app.querySelector("#help").textContent = t(this.ui.helpKey());
    document.getElementById("status").textContent = `${gameTitle(v.game)} · ${t("status.round", { n: v.round, total: v.rounds })}`;
    document.title = myTurn ? `• ${t("status.yourTurn")} – ${gameTitle(v.game)}` : gameTitle(v.game);
  }

  renderPanels() {
    const v = this.view;
    if (!v || !this.ui) return;
    const names = this.names();
    const seats = this.summary ? this.summary.seats : [];
    const box = this.app.querySelector("#players");
    box.innerHTML = v.players.map((p) => {
      const s = seats[p.seat] || {};
      const turn = v.current_player === p.seat;
      const absent = s.kind === "human" && s.connected === false && this.seat !== null && p.seat !== this.seat;
      const mineBotted = s.kind === "bot" && s.human && p.seat === this.seat;
      const start = v.starting_player === p.seat;
      return `<div class="panel ${seatClass(p.seat)}${turn ? " turn" : ""}${p.seat === v.viewer ? " me" : ""}" data-seat="${p.seat}">
        <div class="pname">${bootIcon(PLAYER_COLOURS[p.seat % 6], 18)}${seatShapeIcon(p.seat)}
          <span class="nm">${esc(names[p.seat])}</span>
          ${s.kind === "human" ? `<i class="dot ${s.connected ? "on" : "off"}" title="${esc(t(s.connected ? "panel.online" : "panel.offline"))}"></i>` : ""}
          ${start ? `<span class="badge start-badge" title="${esc(t("panel.starting"))}">${START_FLAG}<span>${esc(t("panel.startsShort"))}</span></span>` : ""}
          ${turn ? `<span class="badge turnb">${esc(t("panel.toAct"))}</span>` : ""}</div>
        ${this.ui.panelHTML(p)}
        ${absent && !v.scores ? `<button type="button" class="link" data-tobot="${p.seat}">${esc(t("panel.giveToBot"))}</button>` : ""}
        ${mineBotted ? `<button type="button" class="link" data-takeback="${p.seat}">${esc(t("panel.takeBack"))}</button>` : ""}
      </div>`;
    }).join("");
    box.onclick = async (ev) => {
      const b = ev.target.closest("button");
      if (!b || !this.mine) return;
      try {
        if (b.dataset.tobot) {
          this.summary = await api.toBot(this.id, Number(b.dataset.tobot), { token: this.mine.token, level: "greedy" });
        } else if (b.dataset.takeback) {
          this.summary = await api.takeBack(this.id, Number(b.dataset.takeback), { token: this.mine.token });
        }
        this.onSummary();
      } catch (err) { showError(err); }
    };
  }

  renderLog() {
    const ol = this.app.querySelector("#log");
    const shown = this.log.slice(-150).reverse();
    const known = Number(ol.dataset.last || 0);
    ol.innerHTML = shown.map((e) => `<li class="${seatClass(e.player ?? 0)}${e.seq > known && known ? " new" : ""}"
      data-seq="${e.seq}">${esc(this.ui.describe(e))}</li>`).join("");
    ol.dataset.last = String(this.log.length ? this.log[this.log.length - 1].seq : 0);
  }

  /** The table's own settings (how often to confirm a choice). */
  renderPrefs() {
    const box = this.app.querySelector("#prefs-body");
    if (!box) return;
    box.innerHTML = confirmPrefHTML() + pacePrefHTML();
    bindConfirmPref(box);
    box.querySelector("#pace-pref").addEventListener("change", (ev) => setPace(ev.target.value));
  }

  /** The summary of the round that has just ended, above the controls until closed, or
   * until everyone has acted in the new round (it closes itself). */
  renderRoundSummary() {
    const shown = this.app.querySelector("#round-summary");
    const v = this.view;
    if (shown && (v.seq ?? 0) >= Number(shown.dataset.until)) shown.remove();
    const html = this.rounds.check(this.view, this.log, this.names());
    if (!html) return;
    const old = this.app.querySelector("#round-summary");
    if (old) old.remove();
    const box = this.app.querySelector(".phasebox");
    if (!box) return;
    box.insertAdjacentHTML("afterend", html);
    this.app.querySelector("#round-summary").dataset.until = String((v.seq ?? 0) + v.num_players);
    this.app.querySelector("#round-summary-close").addEventListener("click", () => {
      const el = this.app.querySelector("#round-summary");
      if (el) el.remove();
    });
  }

  async act(text) {
    const game = this.view ? this.view.game : "";
    const question = this.ui && this.ui.confirmText ? this.ui.confirmText(text) : text;
    if (!(await confirmAction(game, text, question))) return;
    this.send(text);
  }

  /** Send an action as it is (already confirmed, or one of a confirmed series). */
  send(text) {
    if (!this.conn || !this.conn.act(text)) {
      toast(t("conn.offline"), "error");
      return false;
    }
    this.pending = true;
    return true;
  }

  showFinal() {
    this.finalShown = true;
    const v = this.view;
    const names = this.names();
    const order = v.players.map((p) => p.seat).sort((a, b) => {
      const wa = v.winners.includes(a) ? 0 : 1, wb = v.winners.includes(b) ? 0 : 1;
      return wa - wb || v.scores[b] - v.scores[a];
    });
    const box = document.createElement("div");
    box.className = "final";
    box.innerHTML = `<div class="final-card">
      <h2 id="final-title">${esc(t("final.title"))}</h2>
      <p class="winner">${esc(t(v.winners.length > 1 ? "final.winners" : "final.winner", { names: v.winners.map((w) => names[w]).join(", ") }))}</p>
      ${v.special_victory ? `<p class="muted">${esc(t("final.special"))}</p>` : ""}
      <table class="scores"><thead><tr><th>#</th><th>${esc(t("final.player"))}</th><th>${esc(t(v.game === "king-of-the-elves" ? "final.gold" : "final.score"))}</th><th></th></tr></thead>
      <tbody>${order.map((s, i) => `<tr class="${v.winners.includes(s) ? "win" : ""}" data-final-seat="${s}">
        <td>${i + 1}</td><td><span class="swatch ${seatClass(s)}"></span> ${esc(names[s])}</td>
        <td class="num">${v.scores[s]}</td><td class="muted small">${esc(this.ui.scoreDetail(v.players[s]))}</td></tr>`).join("")}</tbody></table>
      <div class="row">
        <a class="button primary" href="#/replay/${esc(this.id)}" id="replay-link">${esc(t("final.replay"))}</a>
        <a class="button secondary" href="/api/games/${esc(this.id)}/record" download="${esc(v.game)}-${esc(this.id)}.json" id="record-link">${esc(t("final.replayData"))}</a>
        <a class="button secondary" href="#/">${esc(t("nav.lobby"))}</a>
        <button type="button" class="secondary" id="final-close">${esc(t("final.close"))}</button>
      </div></div>`;
    this.app.appendChild(box);
    const close = openDialog(box, "final-title", { focus: "#replay-link" });
    box.querySelector("#final-close").addEventListener("click", close);
  }

  relabel() {
    applyI18n(this.app);
    if (this.chat) this.chat.relabel();
    if (this.undoButton) this.undoButton.relabel();
    if (this.turnAlert) this.turnAlert.relabel();
    this.renderPrefs();
    if (this.summary && this.summary.status === "open" && !this.view) { this.renderWaiting(); return; }
    if (this.view && this.ui) {
      this.ui.update(this.view);
      this.renderStatus();
      this.renderPanels();
      const ol = this.app.querySelector("#log");
      ol.dataset.last = "0";
      this.renderLog();
      const fin = this.app.querySelector(".final");
      if (fin) { fin.remove(); this.showFinal(); }
    }
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.poll);
    if (this.conn) this.conn.close();
    if (this.ui && this.ui.destroy) this.ui.destroy();
    if (this.clockView) this.clockView.destroy();
    if (this.turnAlert) this.turnAlert.destroy();
    if (window.__elfenland && window.__elfenland.page === this) delete window.__elfenland;
  }
}

/** Note the values (and the focus and caret) of the fields with these ids before a
 *  container is drawn again; the function returned puts them back in the new fields. */
function keepFields(root, ids) {
  const active = document.activeElement;
  const saved = ids.map((id) => root.querySelector(`#${id}`)).filter(Boolean).map((el) => ({
    id: el.id, value: el.value, focused: el === active,
    start: el.selectionStart ?? null, end: el.selectionEnd ?? null,
  }));
  return () => {
    for (const f of saved) {
      const el = root.querySelector(`#${f.id}`);
      if (!el) continue;
      el.value = f.value;
      if (f.focused) {
        el.focus();
        if (f.start !== null && el.setSelectionRange) el.setSelectionRange(f.start, f.end);
      }
    }
  };
}
