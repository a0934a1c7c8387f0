// Elfenland at the table: the board plus the controls of the phase, all driven by the
// view's `legal` list so that only legal choices are ever offered. Every clickable choice
// carries the action text it sends in `data-action`.
import { BoardView, MapIndex } from "./board.js";
import {
  COUNTER_KINDS, PLAYER_COLOURS, TRANSPORTS, TRANSPORT_COLOURS, hiddenIcon, obstacleIcon,
  symbolInner, transportIcon,
} from "./icons.js";
import { holderLabel, t, tn } from "./i18n.js";
import { showError, toast } from "./notify.js";
import { moveForPick, paymentOf, pickOnly } from "./caravan.js";

const HOUSE = `<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M2 8 L8 2 L14 8 V14 H2 Z" fill="#f3e6c4" stroke="#4a3826" stroke-width="1.5"/><rect x="6.5" y="9.5" width="3" height="4.5" fill="#4a3826"/></svg>`;
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The legal action texts sorted by what they do. */
export function parseLegal(legal, index) {
  const out = {
    drawSecret: null, draws: new Map(), blind: null, places: [], obstacles: [], pass: null,
    moves: [], end: null, discards: new Map(), keeps: [],
  };
  for (const text of legal || []) {
    const w = text.split(/\s+/);
    const verb = w[0];
    if (verb === "draw" && w[1] === "secret") out.drawSecret = text;
    else if (verb === "draw" && w[1] === "blind") out.blind = text;
    else if (verb === "draw") out.draws.set(w[1], text);
    else if (verb === "pass") out.pass = text;
    else if (verb === "end") out.end = text;
    else if (verb === "discard") out.discards.set(w[1], text);
    else if (verb === "keep") {
      const secret = w[1] === "secret";
      out.keeps.push({ text, secret, counter: w[w.length - 1] });
    } else if (verb === "place" || verb === "obstacle") {
      const pair = (verb === "place" ? w[2] : w[1]).split("-");
      const r = index.routeBetween(pair[0], pair[1], "road");
      if (!r) continue;
      if (verb === "place") out.places.push({ text, counter: w[1], route: r.id });
      else out.obstacles.push({ text, route: r.id });
    } else if (verb === "move") {
      const [from, to] = w[1].split("-");
      const how = w[2] || "";
      let pay = "normal", cards = [];
      if (how.includes(":")) {
        const [kind, list] = how.split(":");
        pay = kind;
        cards = list.split("+");
      } else if (how === "raft") pay = "raft";
      const want = pay === "raft" ? "water" : pay === "boatmen" ? "lake" : "road";
      const r = index.routeBetween(from, to, want);
      out.moves.push({ text, from, to, pay, cards, route: r ? r.id : null });
    }
  }
  return out;
}

function countList(list) {
  const m = new Map();
  for (const k of list) m.set(k, (m.get(k) || 0) + 1);
  return m;
}

/** Where the board zooms to the action by itself (the phone layouts of style.css). */
const SMALL_SCREEN = "(max-width: 1000px), (max-height: 500px)";

export function transportName(kind) { return t(`transport.${kind}`); }

function cardsText(cards) {
  return [...countList(cards)].map(([k, n]) => `${n} × ${transportName(k)}`).join(", ");
}

export class ElfenlandUI {
  constructor(boardEl, controlsEl, ctx) {
    this.ctx = ctx; // {act(text), names(), seat, map}
    this.index = new MapIndex(ctx.map);
    this.controlsEl = controlsEl;
    this.board = new BoardView(boardEl, this.index, {
      onRoute: (id) => this.clickRoute(id),
      onTown: (id) => this.clickTown(id),
    });
    this.addZoomButtons(boardEl);
    this.view = null;
    this.selected = null; // the counter kind (or "obstacle") chosen for placement
    this.hint = null;
    this.menu = null;
    this.picked = []; // indices into the sorted hand, chosen to pay a step
    this.toDiscard = []; // indices into the sorted hand, picked to discard
    this.discardQueue = []; // confirmed discards still to send, one per update
    this.discardSentAt = -1;
    this.onKey = (ev) => { if (ev.key === "Escape" && this.menu) { ev.preventDefault(); this.closeMenu(); } };
    document.addEventListener("keydown", this.onKey);
  }

  addZoomButtons(boardEl) {
    const box = document.createElement("div");
    box.className = "zoom";
    box.innerHTML = `
      <button type="button" data-zoom="in" data-i18n-title="board.zoomIn">+</button>
      <button type="button" data-zoom="out" data-i18n-title="board.zoomOut">−</button>
      <button type="button" data-zoom="reset" data-i18n-title="board.zoomReset">⟲</button>`;
    box.addEventListener("click", (ev) => {
      const b = ev.target.closest("[data-zoom]");
      if (!b) return;
      if (b.dataset.zoom === "in") this.board.zoom(1.3);
      else if (b.dataset.zoom === "out") this.board.zoom(1 / 1.3);
      else this.board.resetZoom();
    });
    boardEl.appendChild(box);
    this.legend(boardEl);
  }

  legend(boardEl) {
    const box = document.createElement("div");
    box.className = "legend";
    // Each terrain as the board draws it: colour and pattern, so colour is not needed.
    const line = (k) => {
      const d = "M3 6 H33";
      if (k === "river") return `<path d="M3 6 q4 -4 7.5 0 t7.5 0 t7.5 0 t7.5 0" class="river" stroke="#3a86c8" fill="none"/>`;
      if (k === "lake") return `<path d="${d}" class="lake-crossing" stroke="#1f5f8b"/>`;
      const extra = { mountain: "road-mountain", desert: "road-desert", forest: "road-forest" }[k];
      return `<path d="${d}" class="road" stroke="${{ plains: "#9ccc65", forest: "#2e7d32", desert: "#e9c46a", mountain: "#8d7b6b" }[k]}"/>${extra ? `<path d="${d}" class="${extra}"/>` : ""}`;
    };
    box.innerHTML = ["plains", "forest", "desert", "mountain", "river", "lake"].map((k) =>
      `<span data-terrain="${k}"><svg class="lsw" viewBox="0 0 36 12" width="36" height="12" aria-hidden="true">${line(k)}</svg><span data-i18n="terrain.${k}"></span></span>`).join("");
    boardEl.appendChild(box);
  }

  get mine() { return this.view && this.view.viewer !== null && this.view.viewer !== undefined; }

  me() { return this.mine ? this.view.players[this.view.viewer] : null; }

  /** Whose hand the page shows when it is not the player's own (a replay viewed as
   * another seat: its name), else null. */
  owner() { return this.ctx.owner ? this.ctx.owner() : null; }

  update(view) {
    const phaseChanged = !this.view || this.view.phase !== view.phase
      || this.view.current_player !== view.current_player;
    const before = this.view;
    this.view = view;
    this.legal = parseLegal(view.legal, this.index);
    if (phaseChanged) this.closeMenu();
    const handKey = (v) => (v && v.viewer !== null && v.viewer !== undefined
      ? (v.players[v.viewer].hand || []).join(",") : "");
    if (phaseChanged || handKey(before) !== handKey(view) || !this.legal.moves.length) this.picked = [];
    if (!view.discarding || handKey(before) !== handKey(view)) this.toDiscard = [];
    this.sendQueuedDiscard(view);
    this.hint = this.followHint(before, view);
    const placeKinds = this.placeKinds();
    if (!placeKinds.includes(this.selected)) this.selected = placeKinds[0] || null;
    this.board.renderPieces(view, this.ctx.names());
    this.drawLastMove(view);
    this.renderBoardChoices();
    this.renderControls();
    const mineNow = view.current_player === view.viewer && view.viewer !== null && view.viewer !== undefined;
    // Again after each step of the boot: the towns it can reach from there are others.
    const stepped = before && view.phase === "move"
      && before.players[view.viewer] && before.players[view.viewer].boot !== this.me().boot;
    if (mineNow && (phaseChanged || stepped || (before && before.discarding !== view.discarding))) this.zoomToAction(view);
  }

  /** On a small screen, when the turn becomes this player's, the board zooms to where the
   * action is: the roads a counter may go on, or the boot and the towns it can reach. */
  zoomToAction(view) {
    if (!window.matchMedia || !window.matchMedia(SMALL_SCREEN).matches) return;
    const points = [];
    if (view.phase === "place") {
      for (const p of [...this.legal.places, ...this.legal.obstacles]) points.push(this.board.slot(p.route).p);
    } else if (view.phase === "move" && !view.discarding) {
      const me = this.me();
      if (me) points.push(this.board.pos(me.boot));
      for (const town of this.movesByTown().keys()) points.push(this.board.pos(town));
    }
    if (points.length) this.board.focusOn(points);
  }

  /** The discards picked and confirmed together go one per update (the engine takes
   * one card at a time); the queue is dropped if the table moved on. */
  sendQueuedDiscard(view) {
    if (!this.discardQueue.length || view.seq === this.discardSentAt) return;
    const mine = view.discarding && view.current_player === view.viewer;
    const text = mine ? this.legal.discards.get(this.discardQueue[0]) : null;
    if (!text) { this.discardQueue = []; return; }
    this.discardQueue.shift();
    this.discardSentAt = view.seq;
    this.ctx.send(text);
  }

  /** How many more cards the hand must lose (the rules' hand limit). */
  discardNeed() {
    const me = this.me();
    const limit = (this.view.options && this.view.options.hand_limit) || 4;
    return me ? Math.max(0, (me.hand || []).length - limit) : 0;
  }

  async discardPicked(hand) {
    const kinds = this.toDiscard.map((i) => hand[i]);
    const first = this.legal.discards.get(kinds[0]);
    if (!first) return;
    const question = tn("confirm.discardMany", kinds.length, { cards: cardsText(kinds) });
    if (!(await this.ctx.confirm(first, question))) return;
    this.discardQueue = kinds.slice(1);
    this.discardSentAt = this.view.seq;
    this.toDiscard = [];
    this.ctx.send(first);
    this.renderControls();
  }

  /** The last move on the board: the road a counter or obstacle was put on, or the step
   * a boot took, marked until the next move. */
  drawLastMove(view) {
    const NS = "http://www.w3.org/2000/svg";
    if (!this.lastLayer) {
      this.lastLayer = document.createElementNS(NS, "g");
      this.lastLayer.setAttribute("class", "last-layer");
      this.board.svg.insertBefore(this.lastLayer, this.board.piecesLayer);
    }
    this.lastLayer.textContent = "";
    const e = (this.ctx.lastEntry && this.ctx.lastEntry()) || (view.log || [])[(view.log || []).length - 1];
    if (!e) return;
    const w = String(e.action).split(/\s+/);
    let pair = null, want = "road";
    if (w[0] === "place") pair = w[2];
    else if (w[0] === "obstacle") pair = w[1];
    else if (w[0] === "move") {
      pair = w[1];
      want = w[2] === "raft" ? "water" : (w[2] || "").startsWith("boatmen") ? "lake" : "road";
    }
    if (!pair) return;
    const [a, b] = pair.split("-");
    const r = this.index.routeBetween(a, b, want) || this.index.routeBetween(a, b, "water");
    if (!r) return;
    const p = document.createElementNS(NS, "path");
    p.setAttribute("d", this.board.pathD(r.id));
    p.setAttribute("class", "last-move");
    p.setAttribute("stroke", PLAYER_COLOURS[(e.player ?? 0) % 6]);
    p.dataset.lastRoute = r.id;
    p.dataset.seq = String(e.seq);
    this.lastLayer.appendChild(p);
  }

  placeKinds() {
    const kinds = [...new Set(this.legal.places.map((p) => p.counter))];
    kinds.sort((a, b) => COUNTER_KINDS.indexOf(a) - COUNTER_KINDS.indexOf(b));
    if (this.legal.obstacles.length) kinds.push("obstacle");
    return kinds;
  }

  /** Where the mover may go: town id -> the move actions that reach it. */
  movesByTown() {
    const m = new Map();
    for (const mv of this.legal.moves) {
      if (!m.has(mv.to)) m.set(mv.to, []);
      m.get(mv.to).push(mv);
    }
    return m;
  }

  costOf(mv) {
    for (const rc of this.view.route_costs || []) {
      if (rc.route === mv.route && rc.to === mv.to) return rc;
    }
    return null;
  }

  renderBoardChoices() {
    const roads = new Map();
    const towns = new Map();
    if (this.legal.places.length || this.legal.obstacles.length) {
      const list = this.selected === "obstacle" ? this.legal.obstacles
        : this.legal.places.filter((p) => p.counter === this.selected);
      for (const p of list) roads.set(p.route, p.text);
    }
    const picked = this.pickedCards();
    for (const [town, moves] of this.movesByTown()) {
      if (picked.length) {
        // Cards picked: only the towns those very cards pay for.
        if (moveForPick(moves, picked, (m) => this.costOf(m))) {
          towns.set(town, { card: null, title: t("caravan.payThese", { town: this.index.townName(town) }) });
        }
        continue;
      }
      const normal = moves.filter((m) => m.pay === "normal" || m.pay === "raft")
        .map((m) => this.costOf(m)).filter(Boolean)
        .sort((a, b) => a.cards - b.cards);
      const best = normal[0];
      const any = moves.find(pickOnly);
      towns.set(town, best
        ? { card: best.card, cards: best.cards,
          title: t("move.costTitle", { town: this.index.townName(town), n: best.cards, card: transportName(best.card) }) }
        : any ? { card: null, any: any.cards.length,
          title: t("caravan.costTitle", { town: this.index.townName(town), n: any.cards.length }) }
          : { card: null });
    }
    this.board.renderHighlights({ roads, towns });
    // One big target per legal road, at its counter slot: the thing to click.
    for (const [route, text] of roads) {
      const { p } = this.board.slot(route);
      const c = document.createElementNS("http://www.w3.org/2000/svg", "circle");
      c.setAttribute("cx", p[0]);
      c.setAttribute("cy", p[1]);
      c.setAttribute("r", 13);
      c.setAttribute("class", "road-target");
      c.dataset.action = text;
      c.dataset.route = route;
      // Reachable by Tab and operated by Enter or Space, named for screen readers.
      c.setAttribute("tabindex", "0");
      c.setAttribute("role", "button");
      c.setAttribute("aria-label", this.confirmText(text).replace(/\?$/, ""));
      c.addEventListener("click", (ev) => {
        ev.stopPropagation();
        if (!this.board.dragged) this.ctx.act(text);
      });
      c.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); this.ctx.act(text); }
      });
      this.board.badgeLayer.appendChild(c);
    }
    for (const [id, g] of this.board.townEls) {
      const moves = this.movesByTown().get(id);
      delete g.dataset.action;
      delete g.dataset.menu;
      delete g.dataset.caravan;
      if (!moves) continue;
      const direct = this.directMoves(moves, picked);
      if (direct.length === 1) g.dataset.action = direct[0].text;
      else if (direct.length > 1) g.dataset.menu = id;
      else if (!picked.length && moves.some(pickOnly)) g.dataset.caravan = id;
    }
    this.board.focusableTowns(towns);
    if (this.hint && this.hint.route.length) this.drawHint();
  }

  /** The hint still worth showing after a new view: the same one while nothing has
   * happened, the rest of it once its first step was taken, none otherwise. */
  followHint(before, view) {
    const h = this.hint;
    if (!h || !before || view.discarding || view.phase !== "move") return null;
    if (view.seq === h.seq) return h;
    const step = h.route[0];
    const me = view.players[view.viewer];
    if (view.seq === h.seq + 1 && step && me && me.boot === step.to && h.route.length > 1
        && view.current_player === view.viewer) {
      const was = before.players[view.viewer];
      const collected = !(was.towns || []).includes(step.to) && (me.towns || []).includes(step.to);
      return {
        ...h, seq: view.seq, route: h.route.slice(1), done: (h.done || 0) + 1,
        new_towns: h.new_towns - (collected ? 1 : 0),
      };
    }
    return null;
  }

  /** Ask the server for the planner's best route and show it. */
  async askHint() {
    const seq = this.view.seq;
    try {
      const h = await this.ctx.hint();
      if (!this.view || this.view.seq !== seq || h.seq !== seq) return; // outdated
      this.hint = { ...h, done: 0 };
      this.renderBoardChoices();
      this.renderControls();
    } catch (err) {
      showError(err);
    }
  }

  /** The suggested route on the board: each step's road traced, numbered, with the cards
   * it pays. */
  drawHint() {
    const NS = "http://www.w3.org/2000/svg";
    const mk = (tag, attrs, parent) => {
      const e = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      parent.appendChild(e);
      return e;
    };
    this.hint.route.forEach((step, i) => {
      const n = i + 1 + (this.hint.done || 0);
      mk("path", { d: this.board.pathD(step.route), class: "hint-path", "data-hint-step": n },
        this.board.hlLayer);
      const r = this.index.routes.get(step.route);
      const forward = r && r.a === step.from;
      const at = (s) => this.board.slot(step.route, forward ? s : 1 - s).p;
      const [nx, ny] = at(0.27);
      const g = mk("g", { class: "hint-step", "data-hint-step": n,
        transform: `translate(${nx.toFixed(1)},${ny.toFixed(1)})` }, this.board.badgeLayer);
      mk("circle", { r: 11, class: "hint-num-bg" }, g);
      mk("text", { y: 4.5, class: "hint-num" }, g).textContent = String(n);
      const cards = Object.entries(step.paid);
      const [cx, cy] = at(0.73);
      const chip = mk("g", { class: "hint-cards",
        transform: `translate(${(cx - 12).toFixed(1)},${(cy - 11).toFixed(1)})` }, this.board.badgeLayer);
      let x = 0;
      for (const [kind, count] of cards) {
        const w = count > 1 ? 40 : 24;
        mk("rect", { x: x - 2, y: -2, width: w, height: 24, rx: 6, class: "badge-bg" }, chip);
        const sym = mk("g", { transform: `translate(${x},0) scale(0.625)` }, chip);
        sym.innerHTML = `<rect x="0.75" y="0.75" width="30.5" height="30.5" rx="6" fill="${TRANSPORT_COLOURS[kind] || "#ccc"}" stroke="#3b2f22" stroke-width="1.5"/>${symbolInner(kind)}`;
        if (count > 1) mk("text", { x: x + 22, y: 15, class: "badge-text" }, chip).textContent = `×${count}`;
        x += w + 3;
      }
      mk("title", {}, chip).textContent = this.stepText(step, n);
    });
  }

  stepText(step, n) {
    return t("move.hintStep", {
      n, from: this.index.townName(step.from), to: this.index.townName(step.to),
      cards: cardsText(Object.entries(step.paid).flatMap(([k, c]) => Array(c).fill(k))),
    });
  }

  clickRoute(id) {
    const list = this.selected === "obstacle" ? this.legal.obstacles
      : this.legal.places.filter((p) => p.counter === this.selected);
    const hit = list.find((p) => p.route === id);
    if (hit) this.ctx.act(hit.text);
  }

  /** The cards picked in the hand, by kind. */
  pickedCards() {
    const me = this.me();
    if (!me || !this.picked.length) return [];
    const hand = [...(me.hand || [])].sort((a, b) => TRANSPORTS.indexOf(a) - TRANSPORTS.indexOf(b));
    return this.picked.map((i) => hand[i]).filter(Boolean);
  }

  /** The steps to a town offered at a click: with cards picked the one they pay, else
   * every step with a fixed price (caravans and boatmen are paid by picking cards). */
  directMoves(moves, picked = this.pickedCards()) {
    if (picked.length) {
      const mv = moveForPick(moves, picked, (m) => this.costOf(m));
      return mv ? [mv] : [];
    }
    return moves.filter((m) => !pickOnly(m));
  }

  clickTown(id) {
    const moves = this.movesByTown().get(id);
    if (!moves) return;
    const picked = this.pickedCards();
    const direct = this.directMoves(moves, picked);
    if (picked.length && !direct.length) {
      toast(t("caravan.noMatch", { town: this.index.townName(id) }), "error");
      return;
    }
    if (direct.length === 1) {
      this.ctx.act(direct[0].text);
      return;
    }
    this.openMenu(id, moves);
  }

  /** What a confirmation asks before the action is sent. */
  confirmText(text) {
    const w = String(text).split(/\s+/);
    const town = (id) => this.index.townName(id);
    const pair = (s) => { const [a, b] = s.split("-"); return { a: town(a), b: town(b) }; };
    switch (w[0]) {
      case "place": return t("confirm.place", { counter: transportName(w[1]), ...pair(w[2]) });
      case "obstacle": return t("confirm.obstacle", pair(w[1]));
      case "move": {
        const mv = this.legal.moves.find((m) => m.text === text);
        const cards = mv ? paymentOf(mv, (m) => this.costOf(m)) : null;
        return t("confirm.move", { ...pair(w[1]), cards: cards ? cardsText(cards) : "?" });
      }
      case "end": return t("confirm.end");
      case "discard": return t("confirm.discard", { card: transportName(w[1]) });
      case "keep": return t("confirm.keep", { counter: transportName(w[w.length - 1]) });
      default: return text;
    }
  }

  closeMenu() {
    if (this.menu) {
      this.menu.remove();
      if (this.menuReturn && this.menuReturn.isConnected && this.menuReturn.focus) this.menuReturn.focus();
    }
    this.menu = null;
    this.menuReturn = null;
  }

  /** The ways to reach one town: normal payment, raft, and each caravan/boatmen hand. */
  openMenu(town, moves) {
    this.closeMenu();
    const box = document.createElement("div");
    box.className = "menu";
    box.setAttribute("role", "dialog");
    const rows = [];
    for (const mv of moves.filter((m) => m.pay === "normal" || m.pay === "raft")) {
      const c = this.costOf(mv);
      const label = c ? t("move.payWith", { n: c.cards, card: transportName(c.card) }) : mv.text;
      rows.push(`<button type="button" class="opt" data-action="${esc(mv.text)}">
        ${c ? transportIcon(c.card, 22) : ""} <span>${esc(label)}</span></button>`);
    }
    const groups = [["caravan", "move.caravan"], ["boatmen", "move.boatmen"]];
    for (const [pay, key] of groups) {
      const list = moves.filter((m) => m.pay === pay);
      if (!list.length) continue;
      // Not a list of every combination: the player picks the cards in their hand.
      rows.push(`<div class="opt-head">${esc(t(key, { n: list[0].cards.length }))}</div>
        <p class="small caravan-how">${esc(t("caravan.how", { n: list[0].cards.length }))}</p>`);
    }
    box.setAttribute("aria-labelledby", "menu-title");
    box.innerHTML = `<div class="menu-title" id="menu-title">${esc(t("move.to", { town: this.index.townName(town) }))}</div>
      ${rows.join("")}
      <button type="button" class="secondary close" data-i18n="common.cancel">${esc(t("common.cancel"))}</button>`;
    box.addEventListener("click", (ev) => {
      const b = ev.target.closest("button");
      if (!b) return;
      if (b.dataset.action) this.ctx.act(b.dataset.action);
      this.closeMenu();
    });
    this.controlsEl.closest(".game").appendChild(box);
    this.menu = box;
    this.menuReturn = document.activeElement;
    const first = box.querySelector("button");
    if (first) first.focus();
  }

  helpKey() {
    const v = this.view;
    if (!v) return "help.wait";
    if (v.current_player === null || v.current_player === undefined) return "help.over";
    if (v.current_player !== v.viewer) return `help.watch.${v.phase}`;
    if (v.discarding) return "help.discard";
    return `help.${v.phase}`;
  }

  phaseName() {
    const v = this.view;
    if (!v) return "";
    return t(`phase.${v.discarding ? "discard" : v.phase}`);
  }

  renderControls() {
    const v = this.view;
    const L = this.legal;
    const el = this.controlsEl;
    const parts = [];
    const faceUp = `<div class="row faceup" aria-label="${esc(t("draw.faceUp"))}">
      <span class="lbl">${esc(t("draw.faceUp"))}</span>
      ${(v.face_up || []).map((k) => {
        const a = L.draws.get(k);
        return `<button type="button" class="token${a ? " can" : ""}" ${a ? `data-action="${esc(a)}"` : "disabled"}
          title="${esc(transportName(k))}">${transportIcon(k, 34)}</button>`;
      }).join("")}
      <button type="button" class="token pile${L.blind ? " can" : ""}" ${L.blind ? `data-action="${esc(L.blind)}"` : "disabled"}
        title="${esc(t("draw.blind"))}">${hiddenIcon(34)}<span class="count">${v.counter_pile}</span></button>
    </div>`;
    if (L.drawSecret) {
      parts.push(`<button type="button" class="primary big" data-action="${esc(L.drawSecret)}">
        ${hiddenIcon(22)} ${esc(t("draw.secret"))}</button>`);
    }
    parts.push(faceUp);
    const kinds = this.placeKinds();
    if (kinds.length) {
      parts.push(`<div class="row choose"><span class="lbl">${esc(t("place.choose"))}</span>
        ${kinds.map((k) => `<button type="button" class="token select${k === this.selected ? " on" : ""}"
          data-select="${k}" title="${esc(k === "obstacle" ? t("piece.obstacle") : transportName(k))}">
          ${k === "obstacle" ? obstacleIcon(PLAYER_COLOURS[v.viewer % 6], 34) : transportIcon(k, 34)}</button>`).join("")}
      </div>`);
    }
    if (L.pass) {
      parts.push(`<button type="button" class="secondary" data-action="${esc(L.pass)}">${esc(t("place.pass"))}</button>`);
    }
    if (L.moves.length || L.end) {
      parts.push(`<div class="row">
        ${L.end ? `<button type="button" class="primary" data-action="${esc(L.end)}">${esc(t("move.end"))}</button>` : ""}
        ${L.moves.length && this.ctx.hint && this.ctx.hintOn && this.ctx.hintOn() ? `<button type="button" class="secondary" data-hint="1">${esc(t("move.hint"))}</button>` : ""}
      </div>`);
      if (this.hint !== null) {
        const h = this.hint;
        const left = Object.values(h.cards_left).reduce((a, b) => a + b, 0);
        parts.push(h.route.length ? `<div class="hint" id="hint">
          <div>${esc(t("move.hintRoute", { towns: h.route.map((s) => this.index.townName(s.to)).join(" → ") }))}</div>
          <ol start="${(h.done || 0) + 1}">${h.route.map((s, i) => `<li>${esc(this.stepText(s, i + 1 + (h.done || 0)))}</li>`).join("")}</ol>
          <div class="muted">${esc(t("move.hintSummary", { towns: h.new_towns, cards: left }))}</div></div>`
          : `<div class="hint" id="hint">${esc(t("move.hintNone"))}</div>`);
      }
    }
    if (L.keeps.length) {
      parts.push(`<div class="row"><span class="lbl">${esc(t("keep.choose"))}</span>
        ${L.keeps.map((k) => `<button type="button" class="token can" data-action="${esc(k.text)}"
          title="${esc(transportName(k.counter))}${k.secret ? ` (${esc(t("piece.secret"))})` : ""}">
          ${transportIcon(k.counter, 34, k.secret ? "secret" : "")}</button>`).join("")}</div>`);
    }
    const me = this.me();
    if (me) {
      const hand = [...(me.hand || [])].sort((a, b) => TRANSPORTS.indexOf(a) - TRANSPORTS.indexOf(b));
      const discarding = L.discards.size > 0;
      const sending = discarding && this.discardQueue.length > 0;
      const need = discarding ? this.discardNeed() : 0;
      const left = need - this.toDiscard.length;
      const picking = !discarding && L.moves.length > 0;
      const label = sending ? esc(t("discard.sending"))
        : discarding ? `<span id="discard-need" data-need="${need}">${esc(left > 0
          ? tn("discard.more", left) : t("discard.ready"))}</span>`
        : esc(picking ? t("caravan.pickLabel") : holderLabel("hand.title", "hand.titleOf", this.owner()));
      parts.push(`<div class="row hand${discarding ? " discarding" : ""}${picking ? " picking" : ""}">
        <span class="lbl">${label}</span>
        ${hand.length ? hand.map((k, i) => {
          const a = L.discards.get(k);
          if (discarding) {
            const on = this.toDiscard.includes(i);
            const can = !sending && (on || left > 0);
            return `<button type="button" class="hcard dpick${can ? " can" : ""}${on ? " on" : ""}" data-dpick="${i}" data-card="${k}"
              aria-pressed="${on}"${can ? "" : " disabled"} title="${esc(transportName(k))}" aria-label="${esc(transportName(k))}">${transportIcon(k, 30)}</button>`;
          }
          if (picking) {
            const on = this.picked.includes(i);
            return `<button type="button" class="hcard pick${on ? " on" : ""}" data-pick="${i}" data-card="${k}" aria-pressed="${on}"
              title="${esc(transportName(k))}" aria-label="${esc(transportName(k))}">${transportIcon(k, 30)}</button>`;
          }
          return `<button type="button" class="hcard${a ? " can" : ""}" ${a ? `data-action="${esc(a)}"` : "tabindex=\"-1\""}
            title="${esc(transportName(k))}" aria-label="${esc(transportName(k))}">${transportIcon(k, 30)}</button>`;
        }).join("") : `<span class="muted">${esc(t("hand.empty"))}</span>`}
      </div>`);
      if (discarding && !sending && this.toDiscard.length && left === 0) {
        parts.push(`<div class="row"><button type="button" class="primary" id="discard-go">${esc(tn("discard.go", need))}</button>
          <button type="button" class="link" data-undiscard="1">${esc(t("caravan.clear"))}</button></div>`);
      }
      if (picking && this.picked.length) {
        const n = [...this.movesByTown().values()].filter((ms) => moveForPick(ms, this.pickedCards(), (m) => this.costOf(m))).length;
        parts.push(`<div class="row picked" id="picked"><span>${esc((n ? tn("caravan.picked", this.picked.length, { towns: n }) : tn("caravan.pickedNone", this.picked.length)))}</span>
          <button type="button" class="link" data-unpick="1">${esc(t("caravan.clear"))}</button></div>`);
      }
      const counters = [...(me.counters || []), ...(me.kept_counters || [])];
      const secret = me.secret || [];
      parts.push(`<div class="row mine"><span class="lbl">${esc(holderLabel("counters.yours", "counters.of", this.owner()))}</span>
        ${counters.map((k) => `<span class="token" title="${esc(transportName(k))}">${transportIcon(k, 26)}</span>`).join("")}
        ${secret.map((k) => `<span class="token" title="${esc(transportName(k))} (${esc(t("piece.secret"))})">${transportIcon(k, 26, "secret")}</span>`).join("")}
        ${me.obstacle ? `<span class="token" title="${esc(t("piece.obstacle"))}">${obstacleIcon(PLAYER_COLOURS[v.viewer % 6], 26)}</span>` : ""}
        ${!counters.length && !secret.length && !me.obstacle ? `<span class="muted">—</span>` : ""}
      </div>`);
      if (me.town_card) {
        parts.push(`<div class="row"><span class="lbl">${esc(t("townCard.title"))}</span>
          <strong>${esc(this.index.townName(me.town_card))}</strong>
          ${me.distance !== undefined ? `<span class="muted">${esc(tn("townCard.distance", me.distance))}</span>` : ""}</div>`);
      }
    }
    el.innerHTML = parts.join("");
    el.onclick = (ev) => {
      const b = ev.target.closest("button");
      if (!b || b.disabled) return;
      if (b.dataset.dpick !== undefined) {
        const i = Number(b.dataset.dpick);
        this.toDiscard = this.toDiscard.includes(i) ? this.toDiscard.filter((x) => x !== i) : [...this.toDiscard, i];
        this.renderControls();
        const again = this.controlsEl.querySelector(`[data-dpick="${i}"]`);
        if (again) again.focus();
      } else if (b.id === "discard-go") {
        const me = this.me();
        const hand = [...(me.hand || [])].sort((a, c) => TRANSPORTS.indexOf(a) - TRANSPORTS.indexOf(c));
        this.discardPicked(hand);
      } else if (b.dataset.undiscard) {
        this.toDiscard = [];
        this.renderControls();
      } else if (b.dataset.pick !== undefined) {
        const i = Number(b.dataset.pick);
        this.picked = this.picked.includes(i) ? this.picked.filter((x) => x !== i) : [...this.picked, i];
        this.closeMenu();
        this.renderBoardChoices();
        this.renderControls();
        const again = this.controlsEl.querySelector(`[data-pick="${i}"]`);
        if (again) again.focus();
      } else if (b.dataset.unpick) {
        this.picked = [];
        this.renderBoardChoices();
        this.renderControls();
      } else if (b.dataset.select) {
        this.selected = b.dataset.select;
        this.renderBoardChoices();
        this.renderControls();
      } else if (b.dataset.hint) {
        b.disabled = true;
        this.askHint();
      } else if (b.dataset.action) {
        this.ctx.act(b.dataset.action);
      }
    };
  }

  /** A player's panel lines for this game. */
  panelHTML(p) {
    const v = this.view;
    const total = this.index.map.towns.length - 1;
    const visible = [...(p.counters || []), ...(p.kept_counters || [])];
    return `<div class="stats">
      <span title="${esc(t("panel.towns"))}">${HOUSE} <b>${(p.towns || []).length}</b>/${total}</span>
      <span title="${esc(t("panel.cards"))}" class="cards-count"><i class="cardback"></i> <b>${p.cards}</b></span>
      ${v.scores ? `<span title="${esc(t("panel.score"))}">★ <b>${v.scores[p.seat]}</b></span>` : ""}
    </div>
    <div class="pieces">${visible.map((k) => transportIcon(k, 18)).join("")}${
      Array.from({ length: p.secret_counters || 0 }, () => hiddenIcon(18)).join("")}${
      p.obstacle ? obstacleIcon(PLAYER_COLOURS[p.seat % 6], 18) : ""}</div>`;
  }

  /** A log entry in words. */
  describe(e) {
    const name = this.ctx.names()[e.player] || t("seat.n", { n: e.player + 1 });
    const w = String(e.action).split(/\s+/);
    const town = (id) => this.index.townName(id);
    const pair = (s) => { const [a, b] = s.split("-"); return { a: town(a), b: town(b) }; };
    switch (w[0]) {
      case "draw":
        if (w[1] === "secret") {
          return e.counter ? t("log.drawSecretSeen", { name, counter: transportName(e.counter) })
            : t("log.drawSecret", { name });
        }
        if (w[1] === "blind") {
          return t("log.drawBlind", { name, counter: transportName(e.counter || "") });
        }
        return t("log.draw", { name, counter: transportName(w[1]) });
      case "place":
        return t("log.place", { name, counter: transportName(w[1]), ...pair(w[2]) });
      case "obstacle":
        return t("log.obstacle", { name, ...pair(w[1]) });
      case "pass":
        return t("log.pass", { name });
      case "move": {
        const paid = [];
        (e.paid || []).forEach((n, k) => { for (let i = 0; i < n; i++) paid.push(TRANSPORTS[k]); });
        return t("log.move", { name, ...pair(w[1]), cards: paid.length ? cardsText(paid) : "—" });
      }
      case "end":
        return t("log.end", { name });
      case "discard":
        return t("log.discard", { name, card: transportName(w[1]) });
      case "keep":
        if (w[1] === "secret" && w[2]) return t("log.keepSecretSeen", { name, counter: transportName(w[2]) });
        if (w[1] === "secret") return t("log.keepSecret", { name });
        return t("log.keep", { name, counter: transportName(w[1]) });
      default:
        return `${name}: ${e.action}`;
    }
  }

  /** The score line of the final table. */
  scoreDetail(p) {
    const n = (p.towns || []).length;
    if (p.town_card) {
      return `${tn("score.detail", n)}, ${tn("score.stepsFrom", p.distance ?? "?", { town: this.index.townName(p.town_card) })}`;
    }
    return tn("score.detail", n);
  }

  destroy() {
    this.closeMenu();
    document.removeEventListener("keydown", this.onKey);
  }
}
