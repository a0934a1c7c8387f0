// The Elfenland board as SVG, drawn from the map data: towns at their x/y, roads coloured
// by terrain, rivers flowing toward `downstream`, the two lakes with their crossings. The
// static layers are built once; pieces (counters, obstacles, markers, boots) and the
// highlights of legal choices are redrawn from each view.
import {
  BOOT_PATH, PLAYER_COLOURS, PLAYER_SHAPES, TRANSPORT_COLOURS, castleInner, numberOn, obstacleInner,
  shapePath, symbolInner,
} from "./icons.js";
import { t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
export const W = 1000;
export const H = 780;
const PAD = 30;

export const TERRAIN_COLOURS = {
  plains: "#9ccc65",
  forest: "#2e7d32",
  desert: "#e9c46a",
  mountain: "#8d7b6b",
  river: "#3a86c8",
  lake: "#5fa8d3",
};

function el(tag, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

const isRoad = (r) => r.terrain !== "river" && r.terrain !== "lake";

function quad(a, c, b, s) {
  const u = 1 - s;
  return [u * u * a[0] + 2 * u * s * c[0] + s * s * b[0], u * u * a[1] + 2 * u * s * c[1] + s * s * b[1]];
}

function quadTangent(a, c, b, s) {
  const dx = 2 * (1 - s) * (c[0] - a[0]) + 2 * s * (b[0] - c[0]);
  const dy = 2 * (1 - s) * (c[1] - a[1]) + 2 * s * (b[1] - c[1]);
  const n = Math.hypot(dx, dy) || 1;
  return [dx / n, dy / n];
}

/** A closed smooth path through points (Catmull-Rom turned into cubic Béziers). */
function smoothClosed(pts) {
  const n = pts.length;
  let d = `M${pts[0][0].toFixed(1)},${pts[0][1].toFixed(1)}`;
  for (let i = 0; i < n; i++) {
    const p0 = pts[(i - 1 + n) % n], p1 = pts[i], p2 = pts[(i + 1) % n], p3 = pts[(i + 2) % n];
    const c1 = [p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6];
    const c2 = [p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6];
    d += ` C${c1[0].toFixed(1)},${c1[1].toFixed(1)} ${c2[0].toFixed(1)},${c2[1].toFixed(1)} ${p2[0].toFixed(1)},${p2[1].toFixed(1)}`;
  }
  return `${d} Z`;
}

/** Index of the map: towns by id, routes by id, and the route between two towns. */
export class MapIndex {
  constructor(map) {
    this.map = map;
    this.towns = new Map(map.towns.map((tw) => [tw.id, tw]));
    this.routes = new Map(map.routes.map((r) => [r.id, r]));
    this.capital = map.towns.find((tw) => tw.name === map.capital || tw.id === map.capital)?.id
      || map.towns[0].id;
  }

  townName(id) { return this.towns.get(id)?.name || id; }

  /** The route an action's "a-b" names: the road unless water is asked for. */
  routeBetween(a, b, want = "road") {
    for (const r of this.map.routes) {
      if (!((r.a === a && r.b === b) || (r.a === b && r.b === a))) continue;
      if (want === "road" && isRoad(r)) return r;
      if (want === "water" && !isRoad(r)) return r;
      if (want === "lake" && r.terrain === "lake") return r;
    }
    return null;
  }
}

export class BoardView {
  constructor(container, index, handlers = {}) {
    this.index = index;
    this.h = handlers;
    this.svg = el("svg", {
      class: "board", viewBox: `${-PAD} ${-PAD} ${W + 2 * PAD} ${H + 2 * PAD}`,
      role: "group", "aria-label": t("board.label"),
    });
    container.appendChild(this.svg);
    this.vb = { x: -PAD, y: -PAD, w: W + 2 * PAD, h: H + 2 * PAD };
    this.home = { ...this.vb };
    this.geo = new Map();
    this.bootEls = new Map();
    this.knownCounters = null;
    this.buildStatic();
    this.enableZoomPan();
    // Targets and town names keep a size a finger and an eye can use however small the
    // board is drawn: CSS reads --px, the board units one screen pixel spans.
    if (window.ResizeObserver) new ResizeObserver(() => this.updateScale()).observe(this.svg);
    this.updateScale();
  }

  updateScale() {
    const r = this.svg.getBoundingClientRect();
    if (!r.width || !r.height) return;
    const px = Math.max(this.vb.w / r.width, this.vb.h / r.height);
    this.svg.style.setProperty("--px", px.toFixed(3));
  }

  pos(id) {
    const tw = this.index.towns.get(id);
    return [tw.x * W, tw.y * H];
  }

  lakeCentres() {
    const byLake = new Map();
    for (const r of this.index.map.routes) {
      if (r.terrain !== "lake") continue;
      const key = r.lake || "lake";
      if (!byLake.has(key)) byLake.set(key, new Set());
      byLake.get(key).add(r.a).add(r.b);
    }
    const out = new Map();
    for (const [key, towns] of byLake) {
      const pts = [...towns].map((id) => this.pos(id));
      const c = [pts.reduce((s, p) => s + p[0], 0) / pts.length,
        pts.reduce((s, p) => s + p[1], 0) / pts.length];
      out.set(key, { centre: c, pts });
    }
    return out;
  }

  /** The curve of every route: parallel routes between two towns bend apart, lake
   * crossings bend over their lake. */
  computeGeometry() {
    const lakes = this.lakeCentres();
    const groups = new Map();
    for (const r of this.index.map.routes) {
      const key = [r.a, r.b].sort().join("|");
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(r);
    }
    for (const group of groups.values()) {
      const lakeRoute = group.find((r) => r.terrain === "lake");
      group.forEach((r, i) => {
        const a = this.pos(r.a), b = this.pos(r.b);
        const mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
        const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
        let nx = -(b[1] - a[1]) / len, ny = (b[0] - a[0]) / len;
        let off = 0;
        if (lakeRoute) {
          const lc = lakes.get(lakeRoute.lake || "lake").centre;
          const toward = (lc[0] - mid[0]) * nx + (lc[1] - mid[1]) * ny > 0 ? 1 : -1;
          nx *= toward; ny *= toward;
          off = r.terrain === "lake" ? len * 0.06 : -30;
        } else if (group.length > 1) {
          off = (i - (group.length - 1) / 2) * 40;
          if (r.terrain === "river") off = Math.sign(off || 1) * 22;
        }
        const c = [mid[0] + nx * off * 2, mid[1] + ny * off * 2];
        this.geo.set(r.id, { a, b, c, len });
      });
    }
  }

  pathD(id) {
    const g = this.geo.get(id);
    return `M${g.a[0].toFixed(1)},${g.a[1].toFixed(1)} Q${g.c[0].toFixed(1)},${g.c[1].toFixed(1)} ${g.b[0].toFixed(1)},${g.b[1].toFixed(1)}`;
  }

  riverD(id) {
    const g = this.geo.get(id);
    const n = 40;
    const pts = [];
    for (let i = 0; i <= n; i++) {
      const s = i / n;
      const p = quad(g.a, g.c, g.b, s);
      const tg = quadTangent(g.a, g.c, g.b, s);
      const w = Math.sin(s * Math.PI * Math.max(2, Math.round(g.len / 45))) * 5 * Math.sin(s * Math.PI);
      pts.push([p[0] - tg[1] * w, p[1] + tg[0] * w]);
    }
    return `M${pts.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" L")}`;
  }

  slot(id, s = 0.5) {
    const g = this.geo.get(id);
    return { p: quad(g.a, g.c, g.b, s), tg: quadTangent(g.a, g.c, g.b, s) };
  }

  buildStatic() {
    this.computeGeometry();
    const svg = this.svg;
    const defs = el("defs", {}, svg);
    defs.innerHTML = `
      <radialGradient id="parchment" cx="50%" cy="45%" r="70%">
        <stop offset="0%" stop-color="#f7efd8"/><stop offset="70%" stop-color="#eadcb5"/>
        <stop offset="100%" stop-color="#d6c290"/>
      </radialGradient>
      <radialGradient id="lakefill" cx="50%" cy="50%" r="60%">
        <stop offset="0%" stop-color="#9ccfe9"/><stop offset="100%" stop-color="#5fa8d3"/>
      </radialGradient>
      <filter id="glow" x="-50%" y="-50%" width="200%" height="200%">
        <feGaussianBlur stdDeviation="3" result="b"/>
        <feMerge><feMergeNode in="b"/><feMergeNode in="SourceGraphic"/></feMerge>
      </filter>
      <filter id="shadow" x="-30%" y="-30%" width="160%" height="160%">
        <feDropShadow dx="1" dy="1.5" stdDeviation="1.2" flood-opacity="0.45"/>
      </filter>`;
    el("rect", {
      x: -PAD, y: -PAD, width: W + 2 * PAD, height: H + 2 * PAD, rx: 18, fill: "url(#parchment)",
      stroke: "#8b6b3d", "stroke-width": 4,
    }, svg);
    el("rect", {
      x: -PAD + 8, y: -PAD + 8, width: W + 2 * PAD - 16, height: H + 2 * PAD - 16, rx: 12,
      fill: "none", stroke: "#b8965c", "stroke-width": 1.5, "stroke-dasharray": "6 4",
    }, svg);
    this.drawCompass(el("g", { transform: `translate(${W - 40},${H - 10})` }, svg));

    const lakes = el("g", { class: "lakes" }, svg);
    for (const [key, lk] of this.lakeCentres()) {
      const c = lk.centre;
      const ring = [];
      const away = (p, d) => {
        const dx = p[0] - c[0], dy = p[1] - c[1];
        const n = Math.hypot(dx, dy) || 1;
        return [p[0] + (dx / n) * d, p[1] + (dy / n) * d];
      };
      lk.pts.forEach((p, i) => {
        const q = lk.pts[(i + 1) % lk.pts.length];
        ring.push(away(p, -30));
        [0.3, 0.5, 0.7].forEach((f, j) => {
          const m = [p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f];
          ring.push(away(m, 16 + (j === 1 ? 8 : 0) + 4 * Math.sin(i * 2 + j)));
        });
      });
      el("path", {
        d: smoothClosed(ring), fill: "url(#lakefill)", stroke: "#2f6f9a", "stroke-width": 2,
        opacity: 0.95,
      }, lakes);
      const label = el("text", {
        x: c[0], y: c[1] + 4, class: "lake-label", "text-anchor": "middle",
      }, lakes);
      label.textContent = key.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");
    }

    this.routesLayer = el("g", { class: "routes" }, svg);
    for (const r of this.index.map.routes) {
      const g = el("g", { class: `route t-${r.terrain}`, "data-route": r.id }, this.routesLayer);
      const colour = TERRAIN_COLOURS[r.terrain];
      if (r.terrain === "lake") {
        el("path", { d: this.pathD(r.id), class: "lake-crossing", stroke: "#1f5f8b" }, g);
      } else if (r.terrain === "river") {
        const d = this.riverD(r.id);
        el("path", { d, class: "river-bank" }, g);
        el("path", { d, class: "river", stroke: colour }, g);
        for (const s of [0.28, 0.72]) {
          const { p, tg } = this.slot(r.id, s);
          const dir = r.downstream === r.b ? 1 : -1;
          const ang = (Math.atan2(tg[1] * dir, tg[0] * dir) * 180) / Math.PI;
          el("path", {
            d: "M-6,-5 L6,0 L-6,5 Z", class: "flow",
            transform: `translate(${p[0].toFixed(1)},${p[1].toFixed(1)}) rotate(${ang.toFixed(1)})`,
          }, g);
        }
      } else {
        const d = this.pathD(r.id);
        el("path", { d, class: "road-edge" }, g);
        el("path", { d, class: "road", stroke: colour }, g);
        if (r.terrain === "mountain") el("path", { d, class: "road-mountain" }, g);
        if (r.terrain === "desert") el("path", { d, class: "road-desert" }, g);
        if (r.terrain === "forest") el("path", { d, class: "road-forest" }, g);
        const { p } = this.slot(r.id);
        el("circle", { cx: p[0], cy: p[1], r: 12, class: "slot" }, g);
      }
      const title = el("title", {}, g);
      title.textContent = `${this.index.townName(r.a)} – ${this.index.townName(r.b)}`;
      this.geo.get(r.id).title = title;
      el("path", { d: this.pathD(r.id), class: "hit" }, g);
    }
    this.routesLayer.addEventListener("click", (ev) => {
      if (this.dragged) return;
      const g = ev.target.closest("[data-route]");
      if (g && this.h.onRoute) this.h.onRoute(g.dataset.route, ev);
    });

    this.hlLayer = el("g", { class: "highlights" }, svg);
    this.piecesLayer = el("g", { class: "pieces" }, svg);

    this.townsLayer = el("g", { class: "towns" }, svg);
    this.townEls = new Map();
    for (const tw of this.index.map.towns) {
      const [x, y] = this.pos(tw.id);
      const g = el("g", {
        class: `town${tw.id === this.index.capital ? " capital" : ""}`, "data-town": tw.id,
        transform: `translate(${x.toFixed(1)},${y.toFixed(1)})`,
      }, this.townsLayer);
      el("circle", { r: 26, class: "town-ring" }, g);
      if (tw.id === this.index.capital) {
        el("circle", { r: 19, class: "town-dot capital-dot" }, g);
        const c = el("g", { transform: "scale(0.9)" }, g);
        c.innerHTML = castleInner();
      } else {
        el("circle", { r: 13, class: "town-dot" }, g);
      }
      const label = el("text", { y: tw.id === this.index.capital ? 36 : 30, class: "town-label" }, g);
      label.textContent = tw.name;
      el("g", { class: "markers" }, g);
      this.townEls.set(tw.id, g);
    }
    this.townsLayer.addEventListener("click", (ev) => {
      if (this.dragged) return;
      const g = ev.target.closest("[data-town]");
      if (g && this.h.onTown) this.h.onTown(g.dataset.town, ev);
    });
    this.townsLayer.addEventListener("keydown", (ev) => {
      if (ev.key !== "Enter" && ev.key !== " ") return;
      const g = ev.target.closest("[data-town][tabindex]");
      if (!g || !this.h.onTown) return;
      ev.preventDefault();
      this.h.onTown(g.dataset.town, ev);
    });
    this.townsLayer.addEventListener("pointerover", (ev) => {
      const g = ev.target.closest("[data-town]");
      if (g && this.h.onTownHover) this.h.onTownHover(g.dataset.town, true);
    });
    this.townsLayer.addEventListener("pointerout", (ev) => {
      const g = ev.target.closest("[data-town]");
      if (g && this.h.onTownHover) this.h.onTownHover(g.dataset.town, false);
    });
    this.bootsLayer = el("g", { class: "boots" }, svg);
    this.badgeLayer = el("g", { class: "badges" }, svg);
  }

  drawCompass(g) {
    g.innerHTML = `<circle r="20" fill="#f3e6c4" stroke="#8b6b3d" stroke-width="1.5"/>
      <path d="M0 -18 L4 0 L0 18 L-4 0 Z" fill="#8b6b3d"/>
      <path d="M-18 0 L0 -4 L18 0 L0 4 Z" fill="#c7a66b"/>
      <text y="-23" text-anchor="middle" class="compass">N</text>`;
  }

  /** Pieces from a view: counters and obstacles on roads, town markers, boots. */
  renderPieces(view, seatNames = []) {
    const layer = this.piecesLayer;
    const before = this.knownCounters;
    const now = new Map();
    layer.textContent = "";
    for (const item of view.roads || []) {
      const { p, tg } = this.slot(item.route);
      const key = `${item.route}:${item.counter}`;
      now.set(item.route, key);
      const fresh = before && before.get(item.route) !== key;
      const g = el("g", {
        class: `counter${fresh ? " pop" : ""}`, "data-counter": item.route,
        transform: `translate(${p[0].toFixed(1)},${p[1].toFixed(1)})`,
      }, layer);
      const inner = el("g", { class: "counter-inner", filter: "url(#shadow)" }, g);
      el("rect", {
        x: -15, y: -15, width: 30, height: 30, rx: 6, fill: TRANSPORT_COLOURS[item.counter],
        stroke: "#3b2f22", "stroke-width": 1.5,
      }, inner);
      const sym = el("g", { transform: "translate(-13,-13) scale(0.8125)" }, inner);
      sym.innerHTML = symbolInner(item.counter);
      const tip = el("title", {}, g);
      tip.textContent = t(`transport.${item.counter}`);
      if (item.obstacle !== undefined && item.obstacle !== null) {
        const okey = `${item.route}:obstacle`;
        now.set(okey, String(item.obstacle));
        const o = el("g", {
          class: `obstacle${before && before.get(okey) !== String(item.obstacle) ? " pop" : ""}`,
          transform: `translate(${(p[0] + tg[0] * 28).toFixed(1)},${(p[1] + tg[1] * 28).toFixed(1)})`,
        }, layer);
        el("g", { class: "counter-inner" }, o).innerHTML =
          obstacleInner(PLAYER_COLOURS[item.obstacle % PLAYER_COLOURS.length]);
        const ot = el("title", {}, o);
        ot.textContent = t("board.obstacleOf", { name: seatNames[item.obstacle] || "" });
      }
    }
    this.knownCounters = now;

    // Town markers: a dot for each player who still has to collect that town; the
    // viewer's own town card (and at the end everybody's) is flagged.
    const players = view.players || [];
    for (const [id, g] of this.townEls) {
      const m = g.querySelector(".markers");
      m.textContent = "";
      if (id === this.index.capital) continue;
      const missing = players.filter((pl) => !(pl.towns || []).includes(id));
      const n = missing.length;
      missing.forEach((pl, i) => {
        const ang = Math.PI * (1.15 + (n === 1 ? 0.35 : (0.7 * i) / (n - 1)));
        el("path", {
          d: shapePath(pl.seat, 4.6), "data-shape": PLAYER_SHAPES[pl.seat % PLAYER_SHAPES.length],
          transform: `translate(${(Math.cos(ang) * 20).toFixed(1)},${(Math.sin(ang) * 20).toFixed(1)})`,
          class: "marker", fill: PLAYER_COLOURS[pl.seat % PLAYER_COLOURS.length],
        }, m);
      });
      players.forEach((pl) => {
        if (pl.town_card === id) {
          const f = el("g", { class: "town-card-flag", transform: "translate(12,-14)" }, m);
          el("path", { d: "M0 0 V-16 L11 -11 L0 -6", fill: PLAYER_COLOURS[pl.seat % PLAYER_COLOURS.length], stroke: "#111", "stroke-width": 1.2 }, f);
          const ft = el("title", {}, f);
          ft.textContent = t("board.townCardOf", { name: seatNames[pl.seat] || "" });
        }
      });
    }

    // Boots: kept between renders so that a move slides instead of jumping.
    const atTown = new Map();
    for (const pl of players) {
      if (!atTown.has(pl.boot)) atTown.set(pl.boot, []);
      atTown.get(pl.boot).push(pl.seat);
    }
    for (const pl of players) {
      let b = this.bootEls.get(pl.seat);
      if (!b) {
        b = el("g", { class: "boot", "data-boot": pl.seat }, this.bootsLayer);
        const inner = el("g", { class: "boot-inner", filter: "url(#shadow)" }, b);
        el("path", { d: BOOT_PATH, fill: PLAYER_COLOURS[pl.seat % PLAYER_COLOURS.length], stroke: "#111", "stroke-width": 1.5 }, inner);
        inner.insertAdjacentHTML("beforeend", numberOn(PLAYER_COLOURS[pl.seat % PLAYER_COLOURS.length], -1, 4, 13));
        el("title", {}, b);
        this.bootEls.set(pl.seat, b);
      }
      b.querySelector("title").textContent = seatNames[pl.seat] || "";
      const here = atTown.get(pl.boot);
      const i = here.indexOf(pl.seat);
      const [x, y] = this.pos(pl.boot);
      const spread = 15;
      const bx = x + 24 + (i % 3) * spread;
      const by = y - 12 + Math.floor(i / 3) * 22;
      b.style.transform = `translate(${bx.toFixed(1)}px, ${by.toFixed(1)}px)`;
      b.classList.toggle("current", view.current_player === pl.seat);
    }
  }

  /** The towns one may travel to take the keyboard's focus and say what they cost;
   * the others leave the tab order. */
  focusableTowns(towns) {
    for (const [id, g] of this.townEls) {
      const info = towns.get(id);
      if (info) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", info.title || this.index.townName(id));
      } else {
        g.removeAttribute("tabindex");
        g.removeAttribute("role");
        g.removeAttribute("aria-label");
      }
    }
  }

  /** Highlight roads (place phase) or towns with their cost badges (move phase). */
  renderHighlights({ roads = new Map(), towns = new Map(), selectedRoute = null } = {}) {
    this.hlLayer.textContent = "";
    this.badgeLayer.textContent = "";
    for (const g of this.routesLayer.querySelectorAll("[data-route]")) {
      const on = roads.has(g.dataset.route);
      g.classList.toggle("clickable", on);
      g.classList.toggle("dim", roads.size > 0 && !on);
    }
    for (const id of roads.keys()) {
      el("path", { d: this.pathD(id), class: `hl-road${id === selectedRoute ? " selected" : ""}` }, this.hlLayer);
    }
    for (const [id, g] of this.townEls) g.classList.toggle("clickable", towns.has(id));
    for (const [id, info] of towns) {
      const [x, y] = this.pos(id);
      el("circle", { cx: x, cy: y, r: 24, class: "hl-town" }, this.hlLayer);
      if (info && !info.card && info.any) {
        // A town only a caravan (or the boatmen) reaches: its price is any N cards.
        const c = el("g", {
          class: "cost-badge caravan-badge", "data-badge": id,
          transform: `translate(${(x - 44).toFixed(1)},${(y - 30).toFixed(1)})`,
        }, this.badgeLayer);
        el("rect", { x: -2, y: -2, width: 44, height: 24, rx: 6, class: "badge-bg" }, c);
        for (let k = 0; k < 3; k++) {
          el("rect", { x: 1 + k * 4, y: 2 + k * 2, width: 12, height: 15, rx: 2, class: "any-card" }, c);
        }
        el("text", { x: 20, y: 15, class: "badge-text" }, c).textContent = `×${info.any}`;
        el("title", {}, c).textContent = info.title || "";
        continue;
      }
      if (!info || !info.card) continue;
      const outer = el("g", {
        class: "cost-badge", "data-badge": id,
        transform: `translate(${(x - 44).toFixed(1)},${(y - 30).toFixed(1)})`,
      }, this.badgeLayer);
      // Scaled up on a small board (CSS, from --px) so it stays readable on a phone.
      const b = el("g", { class: "badge-inner" }, outer);
      // A price, not a piece: a pill holding a small upright card and its count, so it
      // cannot be taken for a (square) transport counter.
      el("rect", { x: -2, y: -2, width: 46, height: 24, rx: 12, class: "badge-bg price" }, b);
      el("rect", { x: 3, y: 0, width: 15, height: 20, rx: 2.5, fill: TRANSPORT_COLOURS[info.card],
        stroke: "#3b2f22", "stroke-width": 1.2, class: "price-card" }, b);
      const sym = el("g", { transform: "translate(2.5,2.8) scale(0.5)" }, b);
      sym.innerHTML = symbolInner(info.card);
      const tx = el("text", { x: 22, y: 15, class: "badge-text" }, b);
      tx.textContent = `×${info.cards}`;
      const tip = el("title", {}, outer);
      tip.textContent = info.title || "";
    }
  }

  // ----- zoom and pan -------------------------------------------------------------
  setViewBox() {
    const v = this.vb;
    this.svg.setAttribute("viewBox", `${v.x.toFixed(1)} ${v.y.toFixed(1)} ${v.w.toFixed(1)} ${v.h.toFixed(1)}`);
    this.updateScale();
  }

  toBoard(clientX, clientY) {
    const r = this.svg.getBoundingClientRect();
    const scale = Math.max(this.vb.w / r.width, this.vb.h / r.height);
    const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
    return [this.vb.x + this.vb.w / 2 + (clientX - cx) * scale,
      this.vb.y + this.vb.h / 2 + (clientY - cy) * scale];
  }

  zoom(factor, clientX, clientY) {
    const v = this.vb;
    const nw = Math.min(this.home.w, Math.max(this.home.w / 5, v.w / factor));
    const f = v.w / nw;
    const [px, py] = clientX === undefined
      ? [v.x + v.w / 2, v.y + v.h / 2] : this.toBoard(clientX, clientY);
    v.x = px - (px - v.x) / f;
    v.y = py - (py - v.y) / f;
    v.w = nw;
    v.h = v.h / f;
    this.clamp();
    this.setViewBox();
  }

  clamp() {
    const v = this.vb, h = this.home;
    v.x = Math.min(Math.max(v.x, h.x - v.w * 0.25), h.x + h.w - v.w * 0.75);
    v.y = Math.min(Math.max(v.y, h.y - v.h * 0.25), h.y + h.h - v.h * 0.75);
  }

  /** Show the board points `points` (board units) as large as the screen allows,
   * never closer than a quarter of the map: a phone's view of where the action is. */
  focusOn(points, pad = 70) {
    if (!points.length) return;
    const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
    const x0 = Math.min(...xs) - pad, x1 = Math.max(...xs) + pad;
    const y0 = Math.min(...ys) - pad, y1 = Math.max(...ys) + pad;
    const r = this.svg.getBoundingClientRect();
    const aspect = r.width && r.height ? r.width / r.height : this.home.w / this.home.h;
    let w = Math.max(x1 - x0, this.home.w / 4), h = Math.max(y1 - y0, this.home.h / 4);
    if (w / h < aspect) w = h * aspect; else h = w / aspect;
    if (w >= this.home.w && h >= this.home.h) { this.resetZoom(); return; }
    this.vb = { x: (x0 + x1) / 2 - w / 2, y: (y0 + y1) / 2 - h / 2, w, h };
    this.clamp();
    this.setViewBox();
  }

  resetZoom() {
    this.vb = { ...this.home };
    this.setViewBox();
  }

  enableZoomPan() {
    const svg = this.svg;
    const pointers = new Map();
    let start = null;
    let pinch = null;
    svg.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      this.zoom(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.clientX, ev.clientY);
    }, { passive: false });
    svg.addEventListener("pointerdown", (ev) => {
      pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
      this.dragged = false;
      if (pointers.size === 1) start = { x: ev.clientX, y: ev.clientY, vb: { ...this.vb } };
      if (pointers.size === 2) {
        const [p, q] = [...pointers.values()];
        pinch = { d: Math.hypot(p[0] - q[0], p[1] - q[1]), w: this.vb.w };
      }
    });
    svg.addEventListener("pointermove", (ev) => {
      if (!pointers.has(ev.pointerId)) return;
      pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
      if (pointers.size === 2 && pinch) {
        const [p, q] = [...pointers.values()];
        const d = Math.hypot(p[0] - q[0], p[1] - q[1]);
        const target = pinch.w * (pinch.d / d);
        this.zoom(this.vb.w / target, (p[0] + q[0]) / 2, (p[1] + q[1]) / 2);
        this.dragged = true;
        return;
      }
      if (!start) return;
      const dx = ev.clientX - start.x, dy = ev.clientY - start.y;
      if (!this.dragged && Math.hypot(dx, dy) < 6) return;
      if (!this.dragged) svg.setPointerCapture(ev.pointerId);
      this.dragged = true;
      const r = svg.getBoundingClientRect();
      const scale = Math.max(start.vb.w / r.width, start.vb.h / r.height);
      this.vb.x = start.vb.x - dx * scale;
      this.vb.y = start.vb.y - dy * scale;
      this.clamp();
      this.setViewBox();
    });
    const end = (ev) => {
      pointers.delete(ev.pointerId);
      if (pointers.size < 2) pinch = null;
      if (pointers.size === 0) start = null;
      // The click that ends a drag must not count: cleared after the click fired.
      if (this.dragged) setTimeout(() => { this.dragged = false; }, 0);
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
  }
}
