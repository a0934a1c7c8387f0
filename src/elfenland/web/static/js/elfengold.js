// Elfengold at the table: the Elfenland board with gold values, items on the roads, the
// auction panel, and the controls of each of the seven phases. As for the other games,
// every choice offered comes from the view's `legal` list (the engine's) and carries the
// action text it sends in `data-action`; nothing of the rules is recomputed here.
import { BoardView, MapIndex } from "./board.js";
import {
  COUNTER_KINDS, PLAYER_COLOURS, TRANSPORTS, hiddenIcon, seatClass, seatShapeIcon, transportIcon,
} from "./icons.js";
import { holderLabel, t, tn } from "./i18n.js";
import { ask } from "./confirm.js";
import { ElfenlandUI } from "./elfenland.js";

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const NS = "http://www.w3.org/2000/svg";
const SMALL_SCREEN = "(max-width: 1000px), (max-height: 500px)";
const HOUSE = `<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M2 8 L8 2 L14 8 V14 H2 Z" fill="#f3e6c4" stroke="#4a3826" stroke-width="1.5"/><rect x="6.5" y="9.5" width="3" height="4.5" fill="#4a3826"/></svg>`;
/** The item kinds after the six counters, and the two cards that are not transports. */
const SPECIAL = {
  tree: { bg: "#2e7d32", glyph: `<path d="M16 5 L25 22 H7 Z" fill="#a5d6a7" stroke="#1b5e20" stroke-width="1.5"/><rect x="14" y="22" width="4" height="5" fill="#6d4c41"/>` },
  "sea-monster": { bg: "#1f5f8b", glyph: `<path d="M4 22 q4 -10 8 0 q4 -10 8 0 q4 -10 8 0" fill="none" stroke="#bde0fe" stroke-width="2.5"/><circle cx="24" cy="10" r="2" fill="#bde0fe"/>` },
  "gold-piece": { bg: "#7a5a12", glyph: `<circle cx="16" cy="16" r="9" fill="#e9c46a" stroke="#fff3c4" stroke-width="1.5"/><text x="16" y="20.5" text-anchor="middle" font-size="11" font-weight="700" fill="#7a5a12">G</text>` },
  double: { bg: "#6a1b9a", glyph: `<text x="16" y="21" text-anchor="middle" font-size="13" font-weight="700" fill="#fff">×2</text>` },
  exchange: { bg: "#00695c", glyph: `<path d="M7 12 H23 l-4 -4 M25 20 H9 l4 4" fill="none" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/>` },
  witch: { bg: "#4a148c", glyph: `<path d="M8 24 H24 L18 20 L16 6 L12 20 Z" fill="#ce93d8" stroke="#fff" stroke-width="1.2"/>` },
  gold: { bg: "#b8860b", glyph: `<circle cx="16" cy="16" r="8" fill="#ffe082" stroke="#fff8e1" stroke-width="1.5"/>` },
};

/** An item or a card as an inline SVG: a transport's own icon, else a drawn glyph. */
export function itemIcon(kind, size = 28, extraClass = "") {
  const s = SPECIAL[kind];
  if (!s) return transportIcon(kind, size, extraClass);
  return `<svg class="ticon ${extraClass}" viewBox="0 0 32 32" width="${size}" height="${size}"
    aria-hidden="true"><rect x="0.75" y="0.75" width="30.5" height="30.5" rx="6" fill="${s.bg}"
    stroke="#3b2f22" stroke-width="1.5"/>${s.glyph}</svg>`;
}

/** A transport's name is the base game's; the other items and cards have their own. */
export function itemName(kind) { return t(TRANSPORTS.includes(kind) ? `transport.${kind}` : `item.${kind}`); }

function countList(list) {
  const m = new Map();
  for (const k of list || []) m.set(k, (m.get(k) || 0) + 1);
  return m;
}

function cardsText(cards) {
  return [...countList(cards)].map(([k, n]) => `${n} × ${itemName(k)}`).join(", ");
}

const PLACE_VERBS = { place: null, double: "double", tree: "tree", monster: "sea-monster", gold: "gold-piece" };

/** The legal action texts sorted by what they do. */
export function parseEgLegal(legal, index) {
  const out = {
    draws: new Map(), blind: null, takeGold: null, hides: [], bid: null, bidMin: 0, bidMax: 0,
    pass: null, places: [], exchanges: [], moves: [], flights: new Map(), end: null,
    collect: null, cards: null, discards: new Map(), keeps: [],
  };
  for (const text of legal || []) {
    const w = text.split(/\s+/);
    const verb = w[0];
    if (verb === "draw" && w[1] === "blind") out.blind = text;
    else if (verb === "draw") out.draws.set(w[1], text);
    else if (verb === "take") out.takeGold = text;
    else if (verb === "hide") out.hides.push({ text, item: w[1] });
    else if (verb === "bid") {
      const n = Number(w[1]);
      out.bid = text;
      out.bidMin = out.bidMin ? Math.min(out.bidMin, n) : n;
      out.bidMax = Math.max(out.bidMax, n);
    } else if (verb === "pass") out.pass = text;
    else if (verb === "end") out.end = text;
    else if (verb === "collect") out.collect = text;
    else if (verb === "cards") out.cards = text;
    else if (verb === "discard") out.discards.set(w[1], text);
    else if (verb === "keep") {
      const secret = w[1] === "secret";
      out.keeps.push({ text, secret, item: w[w.length - 1] });
    } else if (verb in PLACE_VERBS) {
      const where = w[w.length - 1].split("-");
      const r = index.routeBetween(where[0], where[1], verb === "monster" ? "water" : "road");
      if (!r) continue;
      // The thing chosen before the road: a counter kind, the Double (with its counter),
      // or an obstacle or gold piece.
      const item = verb === "place" ? w[1] : PLACE_VERBS[verb];
      out.places.push({ text, item, counter: verb === "double" ? w[1] : null, route: r.id });
    } else if (verb === "exchange") {
      const a = w[2].split("-"), b = w[4].split("-");
      const ra = index.routeBetween(a[0], a[1], "road"), rb = index.routeBetween(b[0], b[1], "road");
      if (ra && rb) out.exchanges.push({ text, a: { counter: w[1], route: ra.id }, b: { counter: w[3], route: rb.id } });
    } else if (verb === "move") {
      const [from, to] = w[1].split("-");
      const how = w[2] || "";
      let pay = "normal", card = how, cards = [];
      if (how.startsWith("caravan:")) { pay = "caravan"; card = null; cards = how.slice(8).split("+"); }
      else if (w[3] === "witch") pay = "witch";
      out.moves.push({ text, from, to, pay, card, cards });
    } else if (verb === "fly") out.flights.set(w[1], text);
  }
  return out;
}

export class ElfengoldUI {
  constructor(boardEl, controlsEl, ctx) {
    this.ctx = ctx; // {act(text), send(text), confirm, names(), seat, map}
    this.index = new MapIndex(ctx.map);
    this.controlsEl = controlsEl;
    this.board = new BoardView(boardEl, this.index, {
      onRoute: (id) => this.clickRoute(id),
      onTown: (id) => this.clickTown(id),
    });
    this.addZoomButtons(boardEl);
    this.view = null;
    this.selected = null; // the item chosen for placement: a counter kind, "double", ...
    this.doubleWith = null; // the counter that goes with the Double
    this.exchangeFrom = null; // the first road of an Exchange
    this.menu = null;
    this.goldDrawn = false;
    this.onKey = (ev) => { if (ev.key === "Escape" && this.menu) { ev.preventDefault(); this.closeMenu(); } };
    document.addEventListener("keydown", this.onKey);
  }

  /** The base game's zoom buttons and terrain legend: the same board, the same needs. */
  addZoomButtons(boardEl) { ElfenlandUI.prototype.addZoomButtons.call(this, boardEl); }

  legend(boardEl) { ElfenlandUI.prototype.legend.call(this, boardEl); }

  get mine() { return this.view && this.view.viewer !== null && this.view.viewer !== undefined; }

  me() { return this.mine ? this.view.players[this.view.viewer] : null; }

  /** Whose hand the page shows when it is not the player's own (a replay viewed as
   * another seat: its name), else null. */
  owner() { return this.ctx.owner ? this.ctx.owner() : null; }

  update(view) {
    const changed = !this.view || this.view.phase !== view.phase || this.view.current_player !== view.current_player
      || this.view.seq !== view.seq;
    const before = this.view;
    this.view = view;
    this.legal = parseEgLegal(view.legal, this.index);
    if (changed) { this.closeMenu(); this.exchangeFrom = null; }
    const kinds = this.placeKinds();
    if (!kinds.includes(this.selected)) this.selected = kinds[0] || null;
    const withs = this.doubleCounters();
    if (!withs.includes(this.doubleWith)) this.doubleWith = withs[0] || null;
    // The board's own pieces (boots, town markers); the roads' items are drawn here.
    this.board.renderPieces({ ...view, roads: [] }, this.ctx.names());
    this.drawGoldValues(view);
    this.drawItems(view);
    this.drawLastMove(view);
    this.renderBoardChoices();
    this.renderControls();
    const turnCame = !before || before.phase !== view.phase || before.current_player !== view.current_player;
    // Again after each step of the boot: the towns it can reach from there are others.
    const stepped = before && view.phase === "move" && this.mine
      && before.players[view.viewer].boot !== this.me().boot;
    if (this.mine && view.current_player === view.viewer && (turnCame || stepped)) this.zoomToAction(view);
    // After the table's other parts (the help, a round's summary above the controls) have
    // been drawn for this view: measured then, once the page's render is over.
    if (this.mine && view.current_player === view.viewer && changed && (view.legal || []).length) {
      cancelAnimationFrame(this.aboveHandFrame);
      this.aboveHandFrame = requestAnimationFrame(() => this.keepAboveHand());
    }
  }

  /** On a phone held upright the hand is a bar fixed at the foot of the screen, over the
   * page: what came after it in the page lay under it (in the auction, "Yours:", what one
   * owns while bidding). When it becomes this player's turn (and after each of their
   * steps), the page scrolls as little as it can so that the turn's controls, down to
   * "Yours:", stand between the top bar and the hand bar; taller than that room, their
   * top comes first. Elsewhere (a desk, a phone on its side) the hand is in the page's
   * flow: nothing is done. */
  keepAboveHand() {
    const el = this.controlsEl;
    const bar = el && el.isConnected ? el.querySelector(".hand") : null;
    if (!bar || getComputedStyle(bar).position !== "fixed") return;
    const boxes = [...el.children].filter((c) => c !== bar && c.getClientRects().length)
      .map((c) => c.getBoundingClientRect());
    if (!boxes.length) return;
    const top = Math.min(...boxes.map((b) => b.top));
    const bottom = Math.max(...boxes.map((b) => b.bottom));
    const topbar = document.getElementById("topbar");
    const ceiling = (topbar ? Math.max(0, topbar.getBoundingClientRect().bottom) : 0) + 6;
    const floor = bar.getBoundingClientRect().top - 6;
    let dy = bottom > floor ? bottom - floor : 0;
    if (top - dy < ceiling) dy = top - ceiling;
    if (Math.abs(dy) >= 1) window.scrollBy({ top: dy, left: 0, behavior: "instant" });
  }

  /** On a small screen, when the turn becomes this player's, the board zooms to where the
   * action is (as in Elfenland): the roads an item may go on, or the boot and the towns
   * it can reach (a flight reaches every town: it does not count). */
  zoomToAction(view) {
    if (!window.matchMedia || !window.matchMedia(SMALL_SCREEN).matches) return;
    const points = [];
    if (view.phase === "place") {
      for (const p of this.legal.places) points.push(this.board.slot(p.route).p);
      for (const x of this.legal.exchanges) points.push(this.board.slot(x.a.route).p, this.board.slot(x.b.route).p);
    } else if (view.phase === "move") {
      points.push(this.board.pos(this.me().boot));
      for (const mv of this.legal.moves) points.push(this.board.pos(mv.to));
    }
    if (points.length) this.board.focusOn(points);
  }

  /** Each town's gold value as a coin beside it (the random-gold variant deals them). */
  drawGoldValues(view) {
    const key = JSON.stringify(view.gold_values || {});
    if (this.goldKey === key) return;
    this.goldKey = key;
    if (!this.goldLayer) {
      this.goldLayer = document.createElementNS(NS, "g");
      this.goldLayer.setAttribute("class", "gold-layer");
      this.board.svg.insertBefore(this.goldLayer, this.board.piecesLayer);
    }
    this.goldLayer.textContent = "";
    for (const [town, value] of Object.entries(view.gold_values || {})) {
      if (!value || !this.index.towns.has(town)) continue;
      const [x, y] = this.board.pos(town);
      const g = document.createElementNS(NS, "g");
      g.setAttribute("class", "gold-value");
      g.dataset.goldValue = town;
      g.setAttribute("transform", `translate(${(x - 23).toFixed(1)},${(y + 6).toFixed(1)})`);
      g.innerHTML = `<circle r="9" fill="#e9c46a" stroke="#7a5a12" stroke-width="1.5"/>
        <text y="4" text-anchor="middle" font-size="11" font-weight="700" fill="#4a3512">${value}</text>
        <title>${esc(t("eg.goldValue", { town: this.index.townName(town), n: value }))}</title>`;
      this.goldLayer.appendChild(g);
    }
  }

  /** The items on the roads: counters (two with a Double), the obstacle, a gold piece. */
  drawItems(view) {
    if (!this.itemLayer) {
      this.itemLayer = document.createElementNS(NS, "g");
      this.itemLayer.setAttribute("class", "eg-items");
      this.board.svg.insertBefore(this.itemLayer, this.board.bootsLayer || null);
    }
    this.itemLayer.textContent = "";
    for (const road of view.roads || []) {
      const { p, tg } = this.board.slot(road.route);
      const things = [...(road.counters || [])];
      if (road.obstacle) things.push(road.obstacle);
      if (road.gold_piece) things.push("gold-piece");
      if (road.double) things.push("double");
      const g = document.createElementNS(NS, "g");
      g.dataset.egRoad = road.route;
      const names = things.map(itemName).join(", ");
      things.forEach((k, i) => {
        const off = (i - (things.length - 1) / 2) * 24;
        const x = p[0] + tg[0] * off, y = p[1] + tg[1] * off;
        const s = document.createElementNS(NS, "g");
        s.setAttribute("transform", `translate(${x.toFixed(1)},${y.toFixed(1)})`);
        s.dataset.item = k;
        // Scaled up on a small board (CSS, from --px), as Elfenland's counters are.
        s.innerHTML = `<g class="eg-item-inner"><g transform="translate(-11,-11) scale(0.6875)">${
          itemIcon(k, 32).replace(/^<svg[^>]*>/, "").replace(/<\/svg>$/, "")}</g></g>`;
        g.appendChild(s);
      });
      const tip = document.createElementNS(NS, "title");
      tip.textContent = names;
      g.appendChild(tip);
      this.itemLayer.appendChild(g);
    }
  }

  /** The road of the last placement or step, in its player's colour, until the next. */
  drawLastMove(view) {
    if (!this.lastLayer) {
      this.lastLayer = document.createElementNS(NS, "g");
      this.lastLayer.setAttribute("class", "last-layer");
      this.board.svg.insertBefore(this.lastLayer, this.board.piecesLayer);
    }
    this.lastLayer.textContent = "";
    const e = (this.ctx.lastEntry && this.ctx.lastEntry()) || (view.log || [])[(view.log || []).length - 1];
    if (!e) return;
    const w = String(e.action).split(/\s+/);
    const where = { place: w[2], double: w[2], tree: w[1], monster: w[1], gold: w[1], move: w[1] }[w[0]];
    if (!where) return;
    const [a, b] = where.split("-");
    const water = w[0] === "monster" || (w[0] === "move" && w[2] === "raft");
    const r = this.index.routeBetween(a, b, water ? "water" : "road") || this.index.routeBetween(a, b, "water");
    if (!r) return;
    const p = document.createElementNS(NS, "path");
    p.setAttribute("d", this.board.pathD(r.id));
    p.setAttribute("class", "last-move");
    p.setAttribute("stroke", PLAYER_COLOURS[(e.player ?? 0) % 6]);
    p.dataset.lastRoute = r.id;
    this.lastLayer.appendChild(p);
  }

  /** What may be placed now, in the order of the pile: counters, then the others. */
  placeKinds() {
    const kinds = [...new Set(this.legal.places.map((p) => p.item))];
    const order = [...COUNTER_KINDS, "double", "tree", "sea-monster", "gold-piece"];
    kinds.sort((a, b) => order.indexOf(a) - order.indexOf(b));
    if (this.legal.exchanges.length) kinds.push("exchange");
    return kinds;
  }

  doubleCounters() {
    return [...new Set(this.legal.places.filter((p) => p.item === "double").map((p) => p.counter))];
  }

  /** The road → action of the item chosen (for an Exchange: its first or second road). */
  roadChoices() {
    const roads = new Map();
    if (this.selected === "exchange") {
      for (const x of this.legal.exchanges) {
        if (!this.exchangeFrom) {
          roads.set(x.a.route, null);
          roads.set(x.b.route, null);
        } else if (x.a.route === this.exchangeFrom) roads.set(x.b.route, x.text);
        else if (x.b.route === this.exchangeFrom) roads.set(x.a.route, x.text);
      }
      return roads;
    }
    for (const p of this.legal.places) {
      if (p.item !== this.selected) continue;
      if (p.item === "double" && p.counter !== this.doubleWith) continue;
      roads.set(p.route, p.text);
    }
    return roads;
  }

  /** Where the mover may go: town -> its steps, and the flights. */
  movesByTown() {
    const m = new Map();
    for (const mv of this.legal.moves) {
      if (!m.has(mv.to)) m.set(mv.to, []);
      m.get(mv.to).push(mv);
    }
    for (const [town, text] of this.legal.flights) {
      if (!m.has(town)) m.set(town, []);
      m.get(town).push({ text, to: town, pay: "fly" });
    }
    return m;
  }

  renderBoardChoices() {
    const roads = this.roadChoices();
    const towns = new Map();
    for (const [town, moves] of this.movesByTown()) {
      towns.set(town, { card: null, title: t("eg.moveTo", { town: this.index.townName(town) }) });
    }
    this.board.renderHighlights({ roads, towns, selectedRoute: this.exchangeFrom });
    for (const [route, text] of roads) {
      const { p } = this.board.slot(route);
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("cx", p[0]);
      c.setAttribute("cy", p[1]);
      c.setAttribute("r", 13);
      c.setAttribute("class", "road-target");
      c.dataset.route = route;
      if (text) c.dataset.action = text;
      else c.dataset.exchangeRoad = route;
      c.setAttribute("tabindex", "0");
      c.setAttribute("role", "button");
      c.setAttribute("aria-label", text ? this.confirmText(text).replace(/\?$/, "")
        : t("eg.exchangeFirst", this.routeTowns(route)));
      const go = () => this.clickRoute(route);
      c.addEventListener("click", (ev) => { ev.stopPropagation(); if (!this.board.dragged) go(); });
      c.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); go(); }
      });
      this.board.badgeLayer.appendChild(c);
    }
    const byTown = this.movesByTown();
    for (const [id, g] of this.board.townEls) {
      delete g.dataset.action;
      delete g.dataset.menu;
      const moves = byTown.get(id);
      if (!moves) continue;
      if (moves.length === 1 && moves[0].pay === "normal") g.dataset.action = moves[0].text;
      else g.dataset.menu = id;
    }
    this.board.focusableTowns(towns);
  }

  routeTowns(route) {
    const r = this.index.routes.get(route);
    return { a: this.index.townName(r.a), b: this.index.townName(r.b) };
  }

  clickRoute(id) {
    const roads = this.roadChoices();
    if (!roads.has(id)) return;
    const text = roads.get(id);
    if (text && this.selected === "exchange") {
      // A doubled road holds two counters: each swap the two roads allow is offered.
      const swaps = this.legal.exchanges.filter((x) => (x.a.route === this.exchangeFrom && x.b.route === id)
        || (x.b.route === this.exchangeFrom && x.a.route === id));
      if (swaps.length > 1) {
        this.openChoices(t("eg.exchangeWhich"), swaps.map((x) => ({ text: x.text, label: this.confirmText(x.text).replace(/\?$/, "") })));
        return;
      }
    }
    if (text) { this.ctx.act(text); return; }
    // The Exchange's first road: the second one is chosen next.
    this.exchangeFrom = id;
    this.renderBoardChoices();
    this.renderControls();
  }

  clickTown(id) {
    const moves = this.movesByTown().get(id);
    if (!moves) return;
    if (moves.length === 1 && moves[0].pay === "normal") { this.ctx.act(moves[0].text); return; }
    this.openMenu(id, moves);
  }

  moveLabel(mv) {
    if (mv.pay === "fly") return t("eg.fly");
    if (mv.pay === "caravan") return t("eg.caravan", { cards: cardsText(mv.cards) });
    if (mv.pay === "witch") return t("eg.withWitch", { card: itemName(mv.card) });
    return t("eg.payWith", { card: itemName(mv.card) });
  }

  closeMenu() {
    if (this.menu) {
      this.menu.remove();
      if (this.menuReturn && this.menuReturn.isConnected && this.menuReturn.focus) this.menuReturn.focus();
    }
    this.menu = null;
    this.menuReturn = null;
  }

  /** A few choices in a small dialog: {text, label} each. */
  openChoices(title, choices) {
    this.closeMenu();
    const box = document.createElement("div");
    box.className = "menu";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-labelledby", "menu-title");
    box.innerHTML = `<div class="menu-title" id="menu-title">${esc(title)}</div>
      ${choices.map((c) => `<button type="button" class="opt" data-action="${esc(c.text)}"><span>${esc(c.label)}</span></button>`).join("")}
      <button type="button" class="secondary close">${esc(t("common.cancel"))}</button>`;
    this.showMenu(box);
  }

  showMenu(box) {
    box.addEventListener("click", (ev) => {
      const b = ev.target.closest("button");
      if (!b) return;
      const text = b.dataset.action;
      this.closeMenu();
      if (text) this.ctx.act(text);
    });
    this.controlsEl.closest(".game").appendChild(box);
    this.menu = box;
    this.menuReturn = document.activeElement;
    const first = box.querySelector("button");
    if (first) first.focus();
  }

  /** Every way to reach one town: each counter's cards, the witch, caravans, a flight. */
  openMenu(town, moves) {
    this.closeMenu();
    const box = document.createElement("div");
    box.className = "menu";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-labelledby", "menu-title");
    box.innerHTML = `<div class="menu-title" id="menu-title">${esc(t("move.to", { town: this.index.townName(town) }))}</div>
      ${moves.map((mv) => `<button type="button" class="opt" data-action="${esc(mv.text)}">
        ${mv.card ? itemIcon(mv.card, 22) : mv.pay === "fly" ? itemIcon("witch", 22) : ""} <span>${esc(this.moveLabel(mv))}</span></button>`).join("")}
      <button type="button" class="secondary close">${esc(t("common.cancel"))}</button>`;
    this.showMenu(box);
  }

  helpKey() {
    const v = this.view;
    if (!v) return "help.wait";
    if (v.current_player === null || v.current_player === undefined) return "help.over";
    if (v.current_player !== v.viewer) return `help.eg.watch.${v.phase}`;
    return `help.eg.${v.phase}`;
  }

  phaseName() {
    return this.view ? t(`phase.eg.${this.view.phase}`) : "";
  }

  /** The auction: the item for sale and the ones after it, the high bid and bidder, your
   * coins, (on your turn) the bid and the pass, and every player's coins and standing in
   * this sale, so that a bidder sees what the others can pay without scrolling to their
   * panels (below the auction, out of sight at 1280x800 or on a phone). */
  auctionHTML() {
    const v = this.view;
    const a = v.auction;
    if (!a) return "";
    const names = this.ctx.names();
    const L = this.legal;
    const me = this.me();
    const coins = me && me.coins !== undefined ? me.coins : null;
    const high = a.high_bidder === null || a.high_bidder === undefined
      ? t("eg.noBid") : t("eg.highBid", { n: a.high_bid, name: names[a.high_bidder] });
    return `<section class="auction" id="auction" aria-labelledby="auction-title">
      <div class="row auction-head"><h2 id="auction-title">${esc(t("eg.auction"))}</h2>
        <span class="token" data-auction-item="${esc(a.item)}">${itemIcon(a.item, 32)}</span>
        <strong>${esc(itemName(a.item))}</strong></div>
      <p id="auction-high" data-high-bid="${a.high_bid}"><strong>${esc(high)}</strong>
        ${coins !== null ? `· <span id="auction-coins">${esc(tn("eg.yourCoins", coins))}</span>` : ""}</p>
      ${L.bid || L.pass ? `<div class="row bid-row">
        ${L.bid ? `<input type="number" id="bid-amount" min="${L.bidMin}" max="${L.bidMax}" step="1" value="${L.bidMin}"
            aria-label="${esc(t("eg.bidAmount"))}">
          <button type="button" class="primary" id="bid-btn">${esc(t("eg.bid"))}</button>` : ""}
        ${L.pass ? `<button type="button" class="secondary" id="pass-btn" data-action="${esc(L.pass)}">${esc(t("eg.pass"))}</button>` : ""}
      </div>` : ""}
      ${this.biddersHTML(a, names)}
      ${a.row.length > 1 ? `<div class="row small auction-next"><span>${esc(t("eg.next"))}</span>
        ${a.row.slice(1).map((k) => `<span class="token" title="${esc(itemName(k))}">${itemIcon(k, 20)}</span>`).join("")}</div>` : ""}
    </section>`;
  }

  /** Each player in the sale: name, coins (hidden ones, a variant, as "?") and where
   * they stand: the high bid, passed, out of this sale (could not pay), or to bid now. */
  biddersHTML(a, names) {
    // Two players a line in a narrow column: the name without its last bracket (a bot's
    // level, "you"; the whole name is the line's tooltip), the seat's shape and colour.
    const shortName = (n) => String(n).replace(/\s*\((?:[^()]|\([^()]*\))*\)$/, "") || String(n);
    const v = this.view;
    const rows = (v.players || []).map((p) => {
      const s = p.seat;
      let state = "";
      if (s === a.high_bidder) state = "high";
      else if (a.excluded.includes(s)) state = "out";
      else if (a.passed.includes(s)) state = "passed";
      else if (s === v.current_player) state = "turn";
      // The one to bid now is outlined (the turn line above names them), not labelled.
      const label = state && state !== "turn" ? t(`eg.bidder.${state}`, { n: a.high_bid }) : "";
      const hidden = p.coins === undefined || p.coins === null;
      const coins = hidden ? "" : tn("eg.coins", p.coins);
      return `<li class="bidder ${seatClass(s)}${s === v.viewer ? " me" : ""}"
          data-bidder="${s}" data-state="${state}" title="${esc([names[s], coins, label].filter(Boolean).join(" · "))}">${
          seatShapeIcon(s, 10)}<span class="nm">${esc(shortName(names[s]))}</span>
        <span class="coins" data-bidder-coins="${hidden ? "" : p.coins}">● <b>${hidden ? "?" : p.coins}</b></span>
        ${label ? `<span class="st">${esc(label)}</span>` : ""}</li>`;
    });
    return `<ul class="bidders" id="auction-bidders" aria-label="${esc(t("eg.bidders"))}">${rows.join("")}</ul>`;
  }

  /** A bid over the coins one holds is allowed (a winner who cannot pay hands over all
   * coins), so it is always asked about, whatever the confirmation setting. */
  async bid() {
    const input = this.controlsEl.querySelector("#bid-amount");
    const n = Math.floor(Number(input ? input.value : NaN));
    const L = this.legal;
    if (!Number.isFinite(n) || n < L.bidMin || n > L.bidMax) {
      if (input) input.setCustomValidity(tn("eg.bidRange", L.bidMax, { min: L.bidMin }));
      if (input) input.reportValidity();
      return;
    }
    const me = this.me();
    const text = `bid ${n}`;
    if (me && me.coins !== undefined && n > me.coins) {
      if (!(await ask(tn("eg.overbid", n, { coins: me.coins }), text))) return;
      this.ctx.send(text);
      return;
    }
    this.ctx.act(text);
  }

  renderControls() {
    const v = this.view;
    const L = this.legal;
    const parts = [];
    parts.push(this.auctionHTML());
    if (L.hides.length) {
      parts.push(`<div class="row hide-items" id="hide-items"><span class="lbl">${esc(t("eg.hideChoose"))}</span>
        ${L.hides.map((h) => `<button type="button" class="token can" data-action="${esc(h.text)}"
          aria-label="${esc(t("eg.hide", { item: itemName(h.item) }))}" title="${esc(t("eg.hide", { item: itemName(h.item) }))}">${itemIcon(h.item, 34)}</button>`).join("")}</div>`);
    }
    const drawing = L.draws.size || L.blind || L.takeGold;
    if (drawing || v.phase === "draw-cards" || v.phase === "move-draw") {
      parts.push(`<div class="row faceup" id="display"><span class="lbl">${esc(t("eg.display"))}</span>
        ${(v.display || []).map((k) => {
          const a = L.draws.get(k);
          return `<button type="button" class="token${a ? " can" : ""}" ${a ? `data-action="${esc(a)}"` : "disabled"}
            title="${esc(itemName(k))}" aria-label="${esc(itemName(k))}">${itemIcon(k, 34)}</button>`;
        }).join("")}
        <button type="button" class="token pile${L.blind ? " can" : ""}" ${L.blind ? `data-action="${esc(L.blind)}"` : "disabled"}
          title="${esc(t("eg.blind"))}" aria-label="${esc(t("eg.blind"))}">${hiddenIcon(34)}<span class="count">${v.supply}</span></button>
        <button type="button" class="token gold-deck${L.takeGold ? " can" : ""}" id="gold-deck" ${L.takeGold ? `data-action="${esc(L.takeGold)}"` : "disabled"}
          title="${esc(tn("eg.goldDeck", v.gold_deck))}" aria-label="${esc(tn("eg.goldDeck", v.gold_deck))}">${itemIcon("gold", 34)}<span class="count">${v.gold_deck}</span></button>
      </div>`);
    } else if (!v.auction) { // in the auction, the room goes to the bidders' coins
      parts.push(`<p class="small muted" id="gold-deck-info">${esc(tn("eg.goldDeck", v.gold_deck))}</p>`);
    }
    const kinds = this.placeKinds();
    if (kinds.length) {
      parts.push(`<div class="row choose"><span class="lbl">${esc(t("eg.placeChoose"))}</span>
        ${kinds.map((k) => `<button type="button" class="token select${k === this.selected ? " on" : ""}"
          data-select="${k}" aria-pressed="${k === this.selected}" title="${esc(itemName(k))}" aria-label="${esc(itemName(k))}">${itemIcon(k, 34)}</button>`).join("")}</div>`);
      if (this.selected === "double") {
        parts.push(`<div class="row"><span class="lbl">${esc(t("eg.doubleWith"))}</span>
          ${this.doubleCounters().map((k) => `<button type="button" class="token select${k === this.doubleWith ? " on" : ""}"
            data-double-with="${k}" aria-pressed="${k === this.doubleWith}" title="${esc(itemName(k))}" aria-label="${esc(itemName(k))}">${itemIcon(k, 30)}</button>`).join("")}</div>`);
      }
      if (this.selected === "exchange") {
        parts.push(`<p class="small" id="exchange-help">${esc(this.exchangeFrom
          ? t("eg.exchangeSecond", this.routeTowns(this.exchangeFrom)) : t("eg.exchangeHow"))}</p>`);
      }
    }
    if (L.pass && v.phase === "place") {
      parts.push(`<button type="button" class="secondary" data-action="${esc(L.pass)}" id="place-pass">${esc(t("place.pass"))}</button>`);
    }
    if (L.end) {
      parts.push(`<div class="row"><button type="button" class="primary" id="end-move" data-action="${esc(L.end)}">${esc(t("move.end"))}</button></div>`);
    }
    if (L.collect || L.cards) {
      parts.push(`<div class="row settle" id="settle">
        ${L.collect ? `<button type="button" class="primary" id="collect-btn" data-action="${esc(L.collect)}">${esc(tn("eg.collect", v.earned || 0))}</button>` : ""}
        ${L.cards ? `<button type="button" class="secondary" id="cards-btn" data-action="${esc(L.cards)}">${esc(t("eg.twoCards"))}</button>` : ""}</div>`);
    }
    if (L.keeps.length) {
      parts.push(`<div class="row keep" id="keep-items"><span class="lbl">${esc(t("eg.keepChoose"))}</span>
        ${L.keeps.map((k) => {
          const label = `${itemName(k.item)}${k.secret ? ` (${t("piece.secret")})` : ""}`;
          return `<button type="button" class="token can" data-action="${esc(k.text)}" title="${esc(label)}" aria-label="${esc(t("eg.keep", { item: label }))}">
            ${itemIcon(k.item, 34, k.secret ? "secret" : "")}</button>`;
        }).join("")}</div>`);
    }
    const me = this.me();
    // The items kept so far in the keep step, apart from those still to choose from (in
    // "Yours:" they were one list: after the first pick one could not tell which was kept).
    const keptUp = me ? me.kept_items || [] : [], keptDown = me ? me.kept_face_down || [] : [];
    if (keptUp.length || keptDown.length) {
      const keptToken = (k, secret) => {
        const label = t("eg.keptItem", { item: `${itemName(k)}${secret ? ` (${t("piece.secret")})` : ""}` });
        return `<span class="token kept" data-kept="${k}" title="${esc(label)}" role="img" aria-label="${esc(label)}">${
          itemIcon(k, 30, secret ? "secret" : "")}<span class="kept-mark" aria-hidden="true">✓</span></span>`;
      };
      parts.push(`<div class="row kept-items" id="kept-items"><span class="lbl">${esc(t("eg.kept"))}</span>
        ${keptUp.map((k) => keptToken(k, false)).join("")}${keptDown.map((k) => keptToken(k, true)).join("")}</div>`);
    }
    if (me) {
      const hand = [...(me.hand || [])].sort((a, b) => TRANSPORTS.indexOf(a) - TRANSPORTS.indexOf(b));
      const discarding = L.discards.size > 0;
      parts.push(`<div class="row hand${discarding ? " discarding" : ""}"><span class="lbl">${esc(discarding ? t("eg.discardChoose") : holderLabel("hand.title", "hand.titleOf", this.owner()))}</span>
        ${hand.length ? hand.map((k) => {
          const a = discarding ? L.discards.get(k) : null;
          return `<button type="button" class="hcard${a ? " can" : ""}" ${a ? `data-action="${esc(a)}"` : "tabindex=\"-1\""}
            data-card="${k}" title="${esc(itemName(k))}" aria-label="${esc(itemName(k))}">${itemIcon(k, 30)}</button>`;
        }).join("") : `<span class="muted">${esc(t("hand.empty"))}</span>`}</div>`);
      const up = me.items || [];
      const down = me.face_down || [];
      parts.push(`<div class="row mine" id="my-items"><span class="lbl">${esc(holderLabel("eg.yourItems", "eg.itemsOf", this.owner()))}</span>
        <span class="coins" id="my-coins" data-coins="${me.coins}">${esc(tn("eg.coins", me.coins))}</span>
        ${up.map((k) => `<span class="token" title="${esc(itemName(k))}">${itemIcon(k, 26)}</span>`).join("")}
        ${down.map((k) => `<span class="token" title="${esc(itemName(k))} (${esc(t("piece.secret"))})">${itemIcon(k, 26, "secret")}</span>`).join("")}
        ${!up.length && !down.length ? `<span class="muted">—</span>` : ""}</div>`);
      if (me.town_card) {
        parts.push(`<div class="row"><span class="lbl">${esc(t("townCard.title"))}</span>
          <strong>${esc(this.index.townName(me.town_card))}</strong>
          ${me.distance !== undefined ? `<span class="muted">${esc(tn("townCard.distance", me.distance))}</span>` : ""}</div>`);
      }
    }
    const el = this.controlsEl;
    el.innerHTML = parts.join("");
    el.onclick = (ev) => {
      const b = ev.target.closest("button");
      if (!b || b.disabled) return;
      if (b.id === "bid-btn") this.bid();
      else if (b.dataset.select) {
        this.selected = b.dataset.select;
        this.exchangeFrom = null;
        this.renderBoardChoices();
        this.renderControls();
      } else if (b.dataset.doubleWith) {
        this.doubleWith = b.dataset.doubleWith;
        this.renderBoardChoices();
        this.renderControls();
      } else if (b.dataset.action) this.ctx.act(b.dataset.action);
    };
    const amount = el.querySelector("#bid-amount");
    if (amount) {
      amount.addEventListener("input", () => amount.setCustomValidity(""));
      amount.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); this.bid(); } });
    }
  }

  /** A player's panel lines: towns, cards, coins, and the items others can see. */
  panelHTML(p) {
    const v = this.view;
    const total = this.index.map.towns.length - 1;
    const kept = (k) => `<span class="kept" title="${esc(t("eg.keptItem", { item: itemName(k) }))}">${itemIcon(k, 18)}</span>`;
    return `<div class="stats">
      <span title="${esc(t("panel.towns"))}">${HOUSE} <b>${(p.towns || []).length}</b>/${total}</span>
      <span title="${esc(t("panel.cards"))}" class="cards-count"><i class="cardback"></i> <b>${p.cards}</b></span>
      ${p.coins !== undefined ? `<span class="coins" data-panel-coins="${p.coins}" title="${esc(t("eg.coinsTitle"))}">● <b>${p.coins}</b></span>` : ""}
      ${v.scores ? `<span title="${esc(t("panel.score"))}">★ <b>${v.scores[p.seat]}</b></span>` : ""}
    </div>
    <div class="pieces" data-panel-items="${p.seat}">${(p.items || []).map((k) => `<span title="${esc(itemName(k))}">${itemIcon(k, 18)}</span>`).join("")}${
      (p.kept_items || []).map(kept).join("")}${
      Array.from({ length: p.face_down_items || 0 }, () => hiddenIcon(18)).join("")}</div>`;
  }

  /** What a confirmation asks before the action is sent. */
  confirmText(text) {
    const w = String(text).split(/\s+/);
    const town = (id) => this.index.townName(id);
    const pair = (s) => { const [a, b] = s.split("-"); return { a: town(a), b: town(b) }; };
    switch (w[0]) {
      case "place": return t("eg.confirm.place", { item: itemName(w[1]), ...pair(w[2]) });
      case "double": return t("eg.confirm.double", { item: itemName(w[1]), ...pair(w[2]) });
      case "tree": return t("eg.confirm.place", { item: itemName("tree"), ...pair(w[1]) });
      case "monster": return t("eg.confirm.place", { item: itemName("sea-monster"), ...pair(w[1]) });
      case "gold": return t("eg.confirm.place", { item: itemName("gold-piece"), ...pair(w[1]) });
      case "exchange": {
        const a = pair(w[2]), b = pair(w[4]);
        return t("eg.confirm.exchange", { x: itemName(w[1]), a: `${a.a} – ${a.b}`, y: itemName(w[3]), b: `${b.a} – ${b.b}` });
      }
      case "move": {
        const mv = this.legal.moves.find((m) => m.text === text);
        return t("eg.confirm.move", { ...pair(w[1]), how: mv ? this.moveLabel(mv) : w.slice(2).join(" ") });
      }
      case "fly": return t("eg.confirm.fly", { town: town(w[1]) });
      case "end": return t("confirm.end");
      case "collect": return tn("eg.confirm.collect", this.view.earned || 0);
      case "cards": return t("eg.confirm.cards");
      case "discard": return t("eg.confirm.discard", { card: itemName(w[1]) });
      case "keep": return t("eg.confirm.keep", { item: itemName(w[w.length - 1]) });
      default: return text;
    }
  }

  /** A log entry in words. */
  describe(e) {
    const names = this.ctx.names();
    const name = names[e.player] || t("seat.n", { n: e.player + 1 });
    const w = String(e.action).split(/\s+/);
    const town = (id) => this.index.townName(id);
    const pair = (s) => { const [a, b] = s.split("-"); return { a: town(a), b: town(b) }; };
    let line;
    switch (w[0]) {
      case "draw":
        if (w[1] === "blind") line = e.card ? t("eg.log.drawBlindSeen", { name, card: itemName(e.card) }) : t("eg.log.drawBlind", { name });
        else line = t("eg.log.draw", { name, card: itemName(w[1]) });
        if (e.gold_card) line += ` ${t("eg.log.goldCard")}`;
        break;
      case "take": line = tn("eg.log.takeGold", e.gold_cards ?? 0, { name, coins: e.coins ?? 0 }); break;
      case "hide":
        line = t("eg.log.hide", { name, up: (e.face_up || []).map(itemName).join(", ") });
        if (e.face_down) line += ` ${t("eg.log.hideSeen", { item: itemName(e.face_down) })}`;
        break;
      case "bid": line = tn("eg.log.bid", Number(w[1]), { name }); break;
      case "pass": line = t("eg.log.pass", { name }); break;
      case "place": line = t("eg.log.place", { name, item: itemName(w[1]), ...pair(w[2]) }); break;
      case "double": line = t("eg.log.double", { name, item: itemName(w[1]), ...pair(w[2]) }); break;
      case "tree": line = t("eg.log.place", { name, item: itemName("tree"), ...pair(w[1]) }); break;
      case "monster": line = t("eg.log.place", { name, item: itemName("sea-monster"), ...pair(w[1]) }); break;
      case "gold": line = t("eg.log.place", { name, item: itemName("gold-piece"), ...pair(w[1]) }); break;
      case "exchange": {
        const a = pair(w[2]), b = pair(w[4]);
        line = t("eg.log.exchange", { name, x: itemName(w[1]), a: `${a.a} – ${a.b}`, y: itemName(w[3]), b: `${b.a} – ${b.b}` });
        break;
      }
      case "move":
        line = t("eg.log.move", { name, ...pair(w[1]), cards: (e.paid || []).length ? cardsText(e.paid) : "—", gold: e.gold ?? 0 });
        break;
      case "fly": line = t("eg.log.fly", { name, town: town(w[1]) }); break;
      case "end": line = t("log.end", { name }); break;
      case "collect": line = tn("eg.log.collect", e.coins ?? 0, { name }); break;
      case "cards": line = t("eg.log.cards", { name }); break;
      case "discard": line = t("log.discard", { name, card: itemName(w[1]) }); break;
      case "keep":
        if (w[1] === "secret") line = w[2] ? t("eg.log.keepSecretSeen", { name, item: itemName(w[2]) }) : t("log.keepSecret", { name });
        else line = t("eg.log.keep", { name, item: itemName(w[1]) });
        break;
      default: line = `${name}: ${e.action}`;
    }
    if (e.sold) line += ` ${t("eg.log.sold", { item: itemName(e.sold.item), name: names[e.sold.to], n: e.sold.price })}`;
    if (e.returned) line += ` ${t("eg.log.returned", { item: itemName(e.returned) })}`;
    if (e.default) line += ` ${tn("eg.log.default", e.default.paid, { item: itemName(e.default.item), name: names[e.default.player] })}`;
    return line;
  }

  /** The score line of the final table. */
  scoreDetail(p) {
    return `${tn("score.detail", (p.towns || []).length)}, ${tn("eg.coins", p.coins ?? "?")}`;
  }

  destroy() {
    cancelAnimationFrame(this.aboveHandFrame);
    this.closeMenu();
    document.removeEventListener("keydown", this.onKey);
  }
}

