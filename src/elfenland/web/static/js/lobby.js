// The lobby: create a game (which game, rule set, variants, who sits where), see the
// open games and join one, and come back to the games this browser holds a seat in.
import { api, saveName, saveSeat, savedName, savedSeat } from "./api.js";
import { applyI18n, has, t, tn } from "./i18n.js";
import { showError } from "./notify.js";
import { readTempo, tempoFieldsHTML, wireTempo } from "./tempo.js";
import { fetchPlayerGames, playerPanelHTML, waitingGames, wirePlayerPanel } from "./waiting.js";
import { LobbyFeed } from "./lobbyfeed.js";
import { playerToken, savedPlayer } from "./players.js";
import { afterCreate, applyHotseat, hotseatFieldHTML } from "./hotseat.js";
import { openRules } from "./rulesaid.js";
import { startTutorial } from "./guide.js";

export const BOT_LEVELS = ["random", "greedy", "search"];
const GAMES = [
  { id: "elfenland", min: 2, max: 6 },
  { id: "king-of-the-elves", min: 2, max: 6 },
  { id: "elfengold", min: 2, max: 6 },
];
/** Elfengold's variants offered as check boxes (its OptionSpec's ``variants``; the
 * section-2 rule options stay at the spec's defaults here and are for the API). */
export const EG_VARIANTS = ["witch", "random_gold", "town_cards"];

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function seatLabel(s) {
  if (!s) return "";
  if (s.kind === "open") return t("seat.open");
  if (s.kind === "bot") {
    const bot = t("seat.bot", { n: s.seat + 1, level: t(`level.${s.level}`) === `level.${s.level}` ? s.level : t(`level.${s.level}`) });
    return s.human ? `${s.human} (${bot})` : bot;
  }
  return s.name || t("seat.n", { n: s.seat + 1 });
}

export function gameTitle(game) { return t(`game.${game}`); }

export function rulesLabel(g) {
  const bits = [];
  if (g.game === "elfenland") {
    bits.push(t(`rules.${g.rules || "amigo"}`));
    if (g.options && g.options.destination) bits.push(t("opt.destination"));
    if (g.route_hint) bits.push(t("opt.routeHintShort"));
  } else if (g.game === "elfengold") {
    for (const k of EG_VARIANTS) if (g.options && g.options[k]) bits.push(t(`opt.eg.${k}`));
    if (g.options && g.options.eg_public_gold === false) bits.push(t("opt.eg.secret_gold"));
  } else {
    for (const k of ["magic_spell", "weak_gold", "gold_for_all"]) {
      if (g.options && g.options[k]) bits.push(t(`opt.${k}`));
    }
  }
  // A seed the creator chose predicts every hand: everyone sees it (issue #12).
  if (g.seed_chosen) bits.push(t("opt.seedChosen", { seed: g.seed }));
  // Options that leave the named rule set make a custom, never rated game (issue #22).
  if (g.custom_rules) bits.push(t("opt.customRules"));
  return bits.join(" · ");
}

function seatRow(i, kind, level, hotseat = false, name = "") {
  // At a hotseat table every seat not a bot is played here: each gets a name field
  // (the creator's own is the "Your name" above).
  const local = hotseat && kind === "open";
  return `<div class="seat-row" data-seat-row="${i}">
    <span class="seat-no">${i + 1}</span>
    <select name="kind-${i}" data-kind="${i}" aria-label="${esc(t("lobby.seatKind", { n: i + 1 }))}">
      ${["human", "open", "bot"].map((k) => `<option value="${k}"${k === kind ? " selected" : ""}
        data-i18n="seatkind.${k}"></option>`).join("")}
    </select>
    <select name="level-${i}" data-level="${i}" aria-label="${esc(t("lobby.seatLevel", { n: i + 1 }))}"${kind === "bot" ? "" : " hidden"}>
      ${BOT_LEVELS.map((l) => `<option value="${l}"${l === level ? " selected" : ""} data-i18n="level.${l}"></option>`).join("")}
    </select>
    ${local ? `<input name="seatname-${i}" data-seatname="${i}" maxlength="40" value="${esc(name)}"
      placeholder="${esc(t("hotseat.seatName", { n: i + 1 }))}" aria-label="${esc(t("hotseat.seatName", { n: i + 1 }))}">` : ""}
  </div>`;
}

/** A game's rule options as form fields, built from its declared option specification
 * (``GET /api/options/<game>``): every option that is not a variant (those have their
 * own check boxes), each set to its default. */
export function ruleFieldsHTML(spec) {
  const variants = new Set(spec.variants || []);
  const label = (o) => (has(`opt.eg.${o.name}`) ? `<span data-i18n="opt.eg.${o.name}"></span>` : `<span>${esc(o.doc)}</span>`);
  return spec.options.filter((o) => !variants.has(o.name)).map((o) => {
    if (o.type === "bool") {
      return `<label class="check"><input type="checkbox" data-opt="${esc(o.name)}"${o.default ? " checked" : ""}>${label(o)}</label>`;
    }
    if (o.type === "str") {
      return `<label>${label(o)}<select data-opt="${esc(o.name)}">${o.choices.map((c) => `<option value="${esc(c)}"${c === o.default ? " selected" : ""}${has(`optv.${c}`) ? ` data-i18n="optv.${esc(c)}"` : ""}>${esc(c)}</option>`).join("")}</select></label>`;
    }
    return `<label>${label(o)}<input type="number" data-opt="${esc(o.name)}" min="${o.min}" max="${o.max}" step="1" value="${o.default}"></label>`;
  }).join("");
}

/** The rule options changed from their defaults, as the create request's ``options``. */
export function readRuleFields(box, spec) {
  const out = {};
  if (!spec) return out;
  for (const o of spec.options) {
    const input = box.querySelector(`[data-opt="${o.name}"]`);
    if (!input) continue;
    const value = o.type === "bool" ? input.checked : o.type === "int" ? Number(input.value) : input.value;
    if (value !== o.default) out[o.name] = value;
  }
  return out;
}

export function renderLobby(app) {
  const root = document.createElement("div");
  root.className = "lobby";
  // A first visit sees "New game" first: the few choices that matter (name, game, who
  // plays), the rest folded under "More options"; the lists fold away while empty and
  // the player's settings have a panel of their own.
  root.innerHTML = `<div id="lobby-live" class="sr" role="status" aria-live="polite"></div>
  <section class="card create">
    <h1 data-i18n="lobby.create"></h1>
    <p class="howto"><span data-i18n="lobby.howtoLead"></span>
      <button type="button" class="secondary small" id="learn-btn" data-i18n="lobby.learn"></button>
      <button type="button" class="link" id="howto-btn" data-i18n="lobby.howto"></button></p>
    <form id="create-form" autocomplete="off">
      <label><span data-i18n="lobby.yourName"></span>
        <input name="name" maxlength="40" value="${esc(savedName() || (savedPlayer() || {}).name || "")}" data-i18n-placeholder="lobby.namePlaceholder"></label>
      <div class="row2">
        <label><span data-i18n="lobby.game"></span>
          <select name="game">${GAMES.map((g) => `<option value="${g.id}" data-i18n="game.${g.id}"></option>`).join("")}</select></label>
        <label><span data-i18n="lobby.players"></span>
          <select name="players">${[2, 3, 4, 5, 6].map((n) => `<option${n === 4 ? " selected" : ""}>${n}</option>`).join("")}</select></label>
      </div>
      <fieldset class="seats"><legend data-i18n="lobby.seats"></legend><div id="seat-rows"></div></fieldset>
      <button type="submit" class="primary big" id="create-btn" data-i18n="lobby.createBtn"></button>
      <details class="more" id="more-options"><summary data-i18n="lobby.more"></summary>
        <div class="elf-only">
          <label><span data-i18n="lobby.rules"></span>
            <select name="rules"><option value="amigo" data-i18n="rules.amigo"></option>
            <option value="moon" data-i18n="rules.moon"></option></select></label>
          <button type="button" class="link" data-explain="elfenland:rules" data-i18n="aid.explain"></button>
          <label class="check"><input type="checkbox" name="destination">
            <span data-i18n="opt.destination"></span></label>
          <button type="button" class="link" data-explain="elfenland:destination" data-i18n="aid.explain"></button>
          <p class="muted small" data-i18n="opt.destinationHelp"></p>
          <label class="check"><input type="checkbox" name="route_hint">
            <span data-i18n="opt.route_hint"></span></label>
          <button type="button" class="link" data-explain="elfenland:route_hint" data-i18n="aid.explain"></button>
        </div>
        <div class="koe-only" hidden>
          <label class="check"><input type="checkbox" name="magic_spell"><span data-i18n="opt.magic_spell"></span></label>
          <label class="check"><input type="checkbox" name="weak_gold"><span data-i18n="opt.weak_gold"></span></label>
          <label class="check"><input type="checkbox" name="gold_for_all"><span data-i18n="opt.gold_for_all"></span></label>
          <button type="button" class="link" data-explain="king-of-the-elves:magic_spell" data-i18n="aid.explain"></button>
        </div>
        <div class="eg-only" hidden>
          ${EG_VARIANTS.map((k) => `<label class="check"><input type="checkbox" name="eg_${k}"><span data-i18n="opt.eg.${k}"></span></label>`).join("")}
          <label class="check"><input type="checkbox" name="eg_secret_gold"><span data-i18n="opt.eg.secret_gold"></span></label>
          <button type="button" class="link" data-explain="elfengold:witch" data-i18n="aid.explain"></button>
          <details class="rule-options" id="eg-rules"><summary data-i18n="opt.eg.ruleOptions"></summary>
            <p class="muted small" data-i18n="opt.eg.ruleOptionsHelp"></p>
            <div id="eg-rule-fields" class="rule-fields"></div></details>
        </div>
        ${hotseatFieldHTML()}
        ${tempoFieldsHTML()}
      </details>
    </form>
  </section>
  <div class="lobby-side"><section class="card list">
    <div id="mine-box" hidden><h2 data-i18n="lobby.mine"></h2>
      <div id="my-games" class="games"></div></div>
    <details id="open-box" class="fold"><summary><h2><span data-i18n="lobby.open"></span>
      <span class="count" id="open-count"></span></h2></summary>
      <div id="open-games" class="games"></div></details>
    <h2 data-i18n="lobby.about"></h2>
    <p class="muted" data-i18n="lobby.aboutText"></p>
  </section>
  ${playerPanelHTML()}</div>`;
  app.appendChild(root);
  const form = root.querySelector("#create-form");
  const rows = root.querySelector("#seat-rows");
  const kinds = ["human", "bot", "bot", "bot", "bot", "bot"];
  const levels = ["greedy", "greedy", "greedy", "greedy", "greedy", "greedy"];
  const names = ["", "", "", "", "", ""];

  const drawSeats = () => {
    const n = Number(form.players.value);
    const hot = form.hotseat && form.hotseat.checked;
    rows.innerHTML = Array.from({ length: n }, (_, i) => seatRow(i, kinds[i], levels[i], hot, names[i])).join("");
    applyI18n(rows);
  };
  rows.addEventListener("change", (ev) => {
    const k = ev.target.dataset.kind, l = ev.target.dataset.level;
    if (k !== undefined) {
      const i = Number(k);
      if (ev.target.value === "human") kinds.forEach((v, j) => { if (v === "human" && j !== i) kinds[j] = "open"; });
      kinds[i] = ev.target.value;
      drawSeats();
    }
    if (l !== undefined) levels[Number(l)] = ev.target.value;
  });
  rows.addEventListener("input", (ev) => {
    const i = ev.target.dataset.seatname;
    if (i !== undefined) names[Number(i)] = ev.target.value;
  });
  form.hotseat.addEventListener("change", drawSeats);
  const showVariants = () => {
    const game = form.game.value;
    root.querySelector(".elf-only").hidden = game !== "elfenland";
    root.querySelector(".koe-only").hidden = game !== "king-of-the-elves";
    root.querySelector(".eg-only").hidden = game !== "elfengold";
  };
  form.game.addEventListener("change", showVariants);
  // Elfengold's rule options: their fields come from the server's option specification.
  let egSpec = null;
  root.querySelector("#eg-rules").addEventListener("toggle", async (ev) => {
    if (!ev.target.open || egSpec) return;
    try {
      egSpec = await api.options("elfengold");
      const box = root.querySelector("#eg-rule-fields");
      box.innerHTML = ruleFieldsHTML(egSpec);
      applyI18n(box);
    } catch (err) { showError(err); }
  });
  form.addEventListener("click", (ev) => {
    const b = ev.target.closest("[data-explain]");
    if (!b) return;
    const [game, anchor] = b.dataset.explain.split(":");
    openRules(game, anchor === "rules" ? form.rules.value : anchor);
  });
  form.players.addEventListener("change", drawSeats);
  drawSeats();
  showVariants();
  wireTempo(form);
  wirePlayerPanel(root, form);
  root.querySelector("#howto-btn").addEventListener("click", () => openRules(form.game.value));
  root.querySelector("#learn-btn").addEventListener("click", async (ev) => {
    ev.target.disabled = true;
    try { await startTutorial(form.name.value, form.game.value); } catch (err) { showError(err); ev.target.disabled = false; }
  });

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const n = Number(form.players.value);
    const game = form.game.value;
    const options = {};
    let rules = null;
    if (game === "elfenland") {
      rules = form.rules.value;
      options.destination = form.destination.checked;
      // A table with the route hint is unrated (the server says so and refuses the hint
      // everywhere else).
      if (form.route_hint.checked) options.route_hint = true;
    } else if (game === "elfengold") {
      for (const k of EG_VARIANTS) if (form[`eg_${k}`].checked) options[k] = true;
      if (form.eg_secret_gold.checked) options.eg_public_gold = false;
      Object.assign(options, readRuleFields(root.querySelector("#eg-rule-fields"), egSpec));
    } else {
      for (const k of ["magic_spell", "weak_gold", "gold_for_all"]) if (form[k].checked) options[k] = true;
    }
    const seats = Array.from({ length: n }, (_, i) => (kinds[i] === "bot"
      ? { kind: "bot", level: levels[i] } : { kind: kinds[i] }));
    const name = form.name.value.trim();
    if (name) saveName(name);
    const body = { game, players: n, options, seats, name: name || null };
    if (rules) body.rules = rules;
    const tempo = readTempo(form);
    if (tempo) body.tempo = tempo;
    if (playerToken()) body.player = playerToken();
    applyHotseat(form, body);
    const btn = root.querySelector("#create-btn");
    btn.disabled = true;
    try {
      const res = await api.create(body);
      if (res.token !== null && res.token !== undefined) saveSeat(res.game.id, res.seat, res.token, name);
      afterCreate(res);
      // You and bots (or a hotseat table): nobody to wait for, so it starts at once.
      if (res.token && !body.seats.some((s) => s.kind === "open")) {
        await api.start(res.game.id, { token: res.token });
      }
      location.hash = `#/game/${res.game.id}`;
    } catch (err) {
      showError(err);
    } finally {
      btn.disabled = false;
    }
  });

  const openBox = root.querySelector("#open-games");
  const mineBox = root.querySelector("#my-games");
  const live = new LobbyLive(root, openBox, mineBox);
  live.start();
  return {
    destroy() { live.stop(); },
    relabel() { applyI18n(root); live.draw(); },
  };
}

// How the lists stay current. The lobby feed (lobbyfeed.js) brings every change from
// every server process and each is applied to the games held here, so nothing is
// fetched per change. The lists are fetched whole when the page opens, each time the
// feed (re)connects (what happened meanwhile is not replayed), every minute as a safety
// net, and every few seconds while the feed is down — the lobby's old polling.
const POLL_OFFLINE = 4000;
const POLL_LIVE = 60000;
/** Spoken changes wait this long, so that a burst of them is one short sentence. */
const SAY_AFTER = 1500;
const RANK = { running: 0, open: 1, finished: 2 };

class LobbyLive {
  constructor(root, openBox, mineBox) {
    this.root = root;
    this.openBox = openBox;
    this.mineBox = mineBox;
    /** id -> summary: the newest games of every status, and this browser's own. */
    this.games = new Map();
    /** id -> summary with `seat`: the player's unfinished games (player token). */
    this.playerGames = new Map();
    this.online = false;
    this.stopped = false;
    this.timer = null;
    this.drawTimer = null;
    this.sayTimer = null;
    /** Feed messages that arrive while the lists are being fetched: applied again on
     * top of the fetched lists, so none is lost in between. */
    this.pending = null;
    this.loaded = false;
    this.shown = { open: new Set(), waiting: new Set() };
    this.news = { open: [], waiting: [] };
    this.feed = new LobbyFeed({
      live: () => { this.setOnline(true); this.refresh(); },
      offline: () => {
        // Polling takes over until the feed is back (a failed retry changes nothing).
        const was = this.online;
        this.setOnline(false);
        if (was) this.poll(POLL_OFFLINE);
      },
      lobby: (game) => this.message({ type: "lobby", game }),
      turn: (msg) => this.message(msg),
    });
  }

  start() {
    this.setOnline(false);
    this.refresh();
    this.feed.open();
    window.__elfenlandLobby = this;
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.drawTimer);
    clearTimeout(this.sayTimer);
    this.feed.close();
    if (window.__elfenlandLobby === this) delete window.__elfenlandLobby;
  }

  setOnline(on) {
    this.online = on;
    this.root.dataset.feed = on ? "live" : "offline";
    // Which server process the feed is on (how the tests see it move after a drain).
    if (on && this.feed.server) this.root.dataset.feedServer = this.feed.server;
  }

  poll(ms) {
    clearTimeout(this.timer);
    if (!this.stopped) this.timer = setTimeout(() => this.refresh(), ms);
  }

  async refresh() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const pending = [];
    this.pending = pending;
    try {
      const [open, all, playerGames] = await Promise.all([
        api.games("open"), api.games(), fetchPlayerGames()]);
      const games = new Map();
      for (const g of [...all.games, ...open.games]) games.set(g.id, g);
      // In a cluster the list's answering process knows whose turn it is only in the
      // games it serves: ask the others' own processes about this browser's games.
      const unknown = [...games.values()].filter((g) => savedSeat(g.id)
        && g.status === "running" && g.to_act === undefined);
      const asked = await Promise.all(unknown.map((g) => api.game(g.id).catch(() => null)));
      for (const got of asked) if (got) games.set(got.game.id, got.game);
      if (this.stopped || this.pending !== pending) return;
      this.games = games;
      this.playerGames = playerGames;
      this.pending = null;
      for (const msg of pending) this.apply(msg);
      this.draw(true);
    } catch (err) {
      if (this.pending === pending) this.pending = null;
      this.openBox.innerHTML = `<p class="error-text">${esc(err.message)}</p>`;
    }
    this.poll(this.online ? POLL_LIVE : POLL_OFFLINE);
  }

  message(msg) {
    if (this.pending) this.pending.push(msg);
    this.apply(msg);
    if (msg.type === "turn" && !this.games.has(msg.game) && !this.playerGames.has(msg.game)
        && savedSeat(msg.game)) {
      // One of this browser's games that is not among the newest: fetch it.
      api.game(msg.game).then((got) => {
        if (this.stopped) return;
        this.games.set(got.game.id, got.game);
        this.schedule();
      }).catch(() => { /* it stays out of the lists until the next fetch */ });
    }
    this.schedule();
  }

  apply(msg) {
    if (msg.type === "lobby") {
      const g = msg.game;
      if (typeof g.id !== "string") return;
      // A summary without `to_act` (from a process that does not serve the game) keeps
      // the one already known.
      this.games.set(g.id, { ...(this.games.get(g.id) || {}), ...g });
      const mine = this.playerGames.get(g.id);
      if (mine) this.playerGames.set(g.id, { ...mine, ...g, seat: mine.seat });
    } else if (msg.type === "turn") {
      for (const map of [this.games, this.playerGames]) {
        const g = map.get(msg.game);
        if (g && !(g.seq > msg.seq)) map.set(msg.game, { ...g, to_act: msg.seat, seq: msg.seq });
      }
    }
  }

  schedule() {
    if (this.drawTimer === null) {
      this.drawTimer = setTimeout(() => { this.drawTimer = null; this.draw(); }, 50);
    }
  }

  /** Draw the lists from the games held here; nothing before the first fetch, which
   * is the baseline (what it brings is not news to announce). */
  draw(fetched = false) {
    if (this.stopped || !(this.loaded || fetched)) return;
    const all = [...this.games.values()];
    const byNew = (a, b) => String(b.created).localeCompare(String(a.created));
    // A game this browser holds a seat in is "yours", never one to join.
    const open = all.filter((g) => g.status === "open" && !savedSeat(g.id)).sort(byNew);
    const mine = all.filter((g) => savedSeat(g.id))
      .sort((a, b) => (RANK[a.status] ?? 3) - (RANK[b.status] ?? 3) || byNew(a, b));
    const waiting = waitingGames(all, this.playerGames);
    const waitingIds = new Set(waiting.map((g) => g.id));
    // Each game once: the player's games from the server join this browser's seats.
    for (const g of this.playerGames.values()) {
      if (g.status !== "finished" && !mine.some((m) => m.id === g.id)) mine.push(g);
    }
    mine.sort((a, b) => Number(waitingIds.has(b.id)) - Number(waitingIds.has(a.id))
      || (RANK[a.status] ?? 3) - (RANK[b.status] ?? 3) || byNew(a, b));
    keepFocus(this.root, () => {
      this.openBox.innerHTML = open.length ? open.map((g) => gameRow(g, "join")).join("")
        : `<p class="muted" data-i18n="lobby.noOpen"></p>`;
      this.mineBox.innerHTML = mine.map((g) => gameRow(g, waitingIds.has(g.id) ? "play" : "resume")).join("");
      this.root.querySelector("#mine-box").hidden = !mine.length;
      const fold = this.root.querySelector("#open-box");
      fold.querySelector("#open-count").textContent = open.length ? `(${open.length})` : "";
      // Folded while empty; opened once when games appear (the player may fold it again).
      if (open.length && !this.openedOnce) { fold.open = true; this.openedOnce = true; }
      if (!open.length) { fold.open = false; this.openedOnce = false; }
      applyI18n(this.openBox);
      applyI18n(this.mineBox);
    });
    this.note("open", open);
    this.note("waiting", waiting);
    this.loaded = true;
  }

  /** Remember what is shown; games that newly appear after the first drawing are news
   * to announce (politely, and a burst at once). */
  note(kind, games) {
    const ids = new Set(games.map((g) => g.id));
    if (this.loaded) {
      for (const g of games) if (!this.shown[kind].has(g.id)) this.news[kind].push(g);
    }
    this.shown[kind] = ids;
    if ((this.news.open.length || this.news.waiting.length) && this.sayTimer === null) {
      this.sayTimer = setTimeout(() => { this.sayTimer = null; this.say(); }, SAY_AFTER);
    }
  }

  say() {
    const region = this.root.querySelector("#lobby-live");
    if (!region || this.stopped) return;
    // Only what is still on screen is worth saying.
    const waiting = this.news.waiting.filter((g) => this.shown.waiting.has(g.id));
    const open = this.news.open.filter((g) => this.shown.open.has(g.id));
    this.news = { open: [], waiting: [] };
    const parts = [];
    if (waiting.length === 1) parts.push(t("live.yourTurn", { game: gameTitle(waiting[0].game) }));
    else if (waiting.length) parts.push(t("live.yourTurns", { n: waiting.length }));
    if (open.length === 1) parts.push(t("live.newGame", { game: gameTitle(open[0].game) }));
    else if (open.length) parts.push(t("live.newGames", { n: open.length }));
    if (!parts.length) return;
    // Emptied first, so that the same sentence as last time is spoken again.
    region.textContent = "";
    setTimeout(() => { if (!this.stopped) region.textContent = parts.join(" "); }, 100);
  }
}

/** Redraw without losing the keyboard's place: the focused link of a game's row is
 * focused again in the row drawn in its stead. */
function keepFocus(root, redraw) {
  const el = document.activeElement;
  const row = el && root.contains(el) ? el.closest("[data-game]") : null;
  const box = row ? row.parentElement && row.parentElement.id : null;
  const id = row ? row.dataset.game : null;
  redraw();
  if (!id || !box) return;
  const again = root.querySelector(`#${box} [data-game="${CSS.escape(id)}"] a`);
  if (again) again.focus();
}

function gameRow(g, what) {
  const taken = g.seats.filter((s) => s.kind !== "open").length;
  const turn = what === "play";
  return `<div class="game-row${turn ? " waiting-row" : ""}" data-game="${esc(g.id)}">
    <div><strong>${esc(gameTitle(g.game))}</strong> <span class="muted">${esc(rulesLabel(g))}</span>
      ${turn ? `<span class="turn-tag" data-i18n="waiting.yourTurn"></span>` : ""}
      ${turn && g.clock && g.clock.deadline ? `<span class="muted small"> · ${esc(t("waiting.until", { time: new Date(g.clock.deadline * 1000).toLocaleString() }))}</span>` : ""}
      <div class="small">${g.seats.map(seatChip).join(" ")}</div>
      <div class="small muted">${esc(tn("lobby.seatsTaken", taken, { total: g.players }))} ·
        ${esc(t(`status.${g.status}`))}</div></div>
    <a class="button ${what === "resume" ? "secondary" : "primary"}" href="#/game/${esc(g.id)}"
      data-i18n="${what === "play" ? "waiting.play" : `lobby.${what}`}"></a>
  </div>`;
}

/** A seat in a game's row; a seat whose player has the game open right now (on any
 * server process) says so. */
function seatChip(s) {
  const on = s.connected === true;
  return `<span class="seat-chip ${s.kind}${on ? " online" : ""}" data-seat="${s.seat}"${on ? ' data-connected="1"' : ""}>${esc(seatLabel(s))}${on
    ? ` <span class="online-dot" aria-hidden="true">●</span><span class="sr">${esc(t("lobby.online"))}</span>` : ""}</span>`;
}
