// King of the Elves at the table: the kingdoms around the table with their towns, the
// gold/thief/obstacle cards and banners beside them, the journey town by town, the hand and
// the bank. As for Elfenland, every choice offered comes from the view's `legal` list.
import { PLAYER_COLOURS, TRANSPORTS, castleInner, numberOn, seatClass, transportIcon } from "./icons.js";
import { holderLabel, t, tn } from "./i18n.js";
import { goldText } from "./follow.js";

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const TERRAINS = ["plains", "forest", "desert", "mountain", "river", "lake"];
export const ACTION_CARDS = ["gold", "thief", "tree", "sea-monster", "escort", "change-of-direction"];
const TERRAIN_BG = {
  plains: "#c5e1a5", forest: "#6fae6a", desert: "#f2d48b", mountain: "#b7a89a", river: "#9cc9ec", lake: "#6fb1dc",
};
const TERRAIN_GLYPH = {
  plains: `<path d="M4 24 q3 -6 6 0 M12 24 q3 -8 6 0 M20 24 q3 -6 6 0" fill="none" stroke="#3f6b1f" stroke-width="2"/>`,
  forest: `<path d="M9 26 V20 M9 6 L3 20 H15 Z M22 26 V21 M22 9 L16 21 H28 Z" fill="#2e6b2f" stroke="#1d3d1d" stroke-width="1.2"/>`,
  desert: `<path d="M2 24 Q10 12 18 22 Q23 16 30 24 Z" fill="#d9a441" stroke="#8a5d12" stroke-width="1.2"/><circle cx="24" cy="8" r="3.5" fill="#f8961e"/>`,
  mountain: `<path d="M2 26 L11 8 L17 18 L21 12 L30 26 Z" fill="#8d7b6b" stroke="#3b2f22" stroke-width="1.2"/><path d="M9 12 L11 8 L13 12 Z" fill="#fff"/>`,
  river: `<path d="M2 12 q4 -4 8 0 t8 0 t8 0 M2 20 q4 -4 8 0 t8 0 t8 0" fill="none" stroke="#1f5f8b" stroke-width="2.2"/>`,
  lake: `<ellipse cx="16" cy="17" rx="12" ry="7" fill="#2f7fb8" stroke="#174a6b" stroke-width="1.2"/><path d="M8 16 q3 -2 6 0 M17 19 q3 -2 6 0" stroke="#cfe6f5" fill="none" stroke-width="1.3"/>`,
};
const ACTION_BG = {
  gold: "#f6d365", thief: "#6c6f7f", tree: "#9bc58b", "sea-monster": "#8fc1d9", escort: "#e8d5b0", "change-of-direction": "#f2b880",
};
const ACTION_GLYPH = {
  gold: `<circle cx="16" cy="16" r="10" fill="#f4c430" stroke="#8a6d00" stroke-width="1.6"/><circle cx="16" cy="16" r="6" fill="none" stroke="#8a6d00" stroke-width="1.2"/>`,
  thief: `<path d="M5 14 Q16 6 27 14 Q16 22 5 14 Z" fill="#222"/><circle cx="11.5" cy="14" r="2.2" fill="#fff"/><circle cx="20.5" cy="14" r="2.2" fill="#fff"/><path d="M10 24 Q16 28 22 24" fill="none" stroke="#222" stroke-width="2"/>`,
  tree: `<rect x="5" y="14" width="22" height="7" rx="3.5" fill="#8b5a2b" stroke="#3a240f" stroke-width="1.2"/><ellipse cx="27" cy="17.5" rx="2" ry="3.5" fill="#d9b382" stroke="#3a240f"/><path d="M11 14 l-3 -6 M17 14 l2 -7" stroke="#3f7d3a" stroke-width="2" stroke-linecap="round"/>`,
  "sea-monster": `<path d="M3 22 Q7 10 11 20 Q15 8 19 20 Q23 10 29 14 L27 18 Q24 16 22 22 Z" fill="#2a9d8f" stroke="#134e48" stroke-width="1.2"/><circle cx="27" cy="13" r="1" fill="#000"/><path d="M2 26 q4 -2 7 0 t7 0 t7 0 t7 0" fill="none" stroke="#1f5f8b" stroke-width="1.5"/>`,
  escort: `<path d="M16 4 L26 8 V16 Q26 24 16 28 Q6 24 6 16 V8 Z" fill="#c0392b" stroke="#5a1a12" stroke-width="1.4"/><path d="M11 16 L15 20 L22 11" fill="none" stroke="#fff" stroke-width="2.4"/>`,
  "change-of-direction": `<path d="M7 12 H23 L19 8 M25 20 H9 L13 24" fill="none" stroke="#6b2f00" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>`,
};

/** Any card of the game (town, transport or action) as a small inline SVG. */
export function cardIcon(kind, size = 30, value = null) {
  if (TRANSPORTS.includes(kind)) return transportIcon(kind, size);
  const town = TERRAINS.includes(kind);
  const bg = town ? TERRAIN_BG[kind] : ACTION_BG[kind] || "#ddd";
  const glyph = town ? TERRAIN_GLYPH[kind] : ACTION_GLYPH[kind] || "";
  const v = value !== null && value !== undefined
    ? `<circle cx="26" cy="6" r="5.5" fill="#fff8dc" stroke="#6b4a10"/><text x="26" y="9" text-anchor="middle" font-size="8.5" font-weight="700" fill="#6b4a10">${value}</text>` : "";
  return `<svg class="ticon" viewBox="0 0 32 32" width="${size}" height="${size}" aria-hidden="true">
    <rect x="0.75" y="0.75" width="30.5" height="30.5" rx="5" fill="${bg}" stroke="#3b2f22" stroke-width="1.5"/>${glyph}${v}</svg>`;
}

export function cardName(kind) { return t(`card.${kind}`); }

function banner(colour, size = 14) {
  return `<svg viewBox="0 0 12 16" width="${size * 0.75}" height="${size}" aria-hidden="true"><path d="M1 0 V16 M1 1 H11 L8 4.5 L11 8 H1" fill="${colour}" stroke="#111" stroke-width="1"/>${numberOn(colour, 5.5, 7.3, 7)}</svg>`;
}

export class KingUI {
  constructor(boardEl, controlsEl, ctx) {
    this.ctx = ctx;
    this.controlsEl = controlsEl;
    this.table = document.createElement("div");
    this.table.className = "koe-table";
    boardEl.appendChild(this.table);
    boardEl.classList.add("koe");
    this.view = null;
    this.prev = null;
    // Log entry seq -> the town card its town ref named when it happened (refs are
    // renumbered by removals and reused every round, so they are resolved only then).
    this.townMemo = new Map();
  }

  update(view) {
    const old = this.view;
    if (!old || view.seq !== old.seq) this.prev = old;
    this.view = view;
    if (view.kingdoms.some((k) => k.towns.length)) this.lastTable = { kingdoms: view.kingdoms, round: view.round };
    this.legal = view.legal || [];
    this.changes = old && view.seq === old.seq + 1 ? this.diff(old, view) : null;
    // The last move's towns stay marked (without the animation) until the next move.
    if (!old || view.seq !== old.seq) this.lastChanges = this.changes;
    this.renderTable();
    this.renderControls();
  }

  /** What the last action changed on the table, for a short highlight: towns played or
   * given an action card, the journey's new town and the gold it earned. */
  diff(old, view) {
    const sig = (v) => {
      const m = new Map();
      for (const k of v.kingdoms) {
        for (const tw of k.towns) m.set(tw.ref, `${tw.town}|${tw.gold}|${tw.thief}|${tw.obstacle}`);
      }
      return m;
    };
    const before = sig(old);
    const fresh = new Set();
    for (const [ref, s] of sig(view)) if (before.get(ref) !== s) fresh.add(ref);
    const oj = old.journey, nj = view.journey;
    let arrived = null, gain = 0;
    if (nj && nj.at && (!oj || oj.traveller !== nj.traveller || oj.at !== nj.at
        || (nj.visited || []).length !== (oj.visited || []).length)) {
      arrived = nj.at;
      gain = (nj.earned ?? 0) - (oj && oj.traveller === nj.traveller ? oj.earned ?? 0 : 0);
    }
    return { fresh, arrived, gain };
  }

  townAction(ref) {
    return this.legal.filter((a) => {
      const w = a.split(/\s+/);
      return ["gold", "thief", "tree", "sea-monster"].includes(w[0]) && w[1] === ref;
    });
  }

  renderTable() {
    const v = this.view;
    const names = this.ctx.names();
    const j = v.journey;
    const over = !!v.scores;
    // The game ends by clearing the table: its end shows the kingdoms as the last round
    // left them (when this page saw them), never a row of empty kingdoms.
    const kingdoms = over ? (this.lastTable ? this.lastTable.kingdoms : []) : v.kingdoms;
    const order = this.journeyOrder(j, kingdoms);
    const boxes = kingdoms.map((k) => {
      const plays = this.legal.filter((a) => /^play \S+ kingdom \d+$/.test(a) && Number(a.split(" ")[3]) === k.owner);
      const removes = k.owner === v.viewer ? this.legal.filter((a) => a.startsWith("remove ")) : [];
      // Towns are listed right to left as played: town 0 is the rightmost one.
      const towns = [...k.towns].reverse().map((tw) => {
        const visited = j && (j.visited || []).includes(tw.ref);
        const next = j && j.next === tw.ref;
        const here = j && j.at === tw.ref;
        const acts = this.townAction(tw.ref);
        const rm = removes.find((a) => a === `remove ${tw.ref.split(".")[1]}`);
        const extras = [];
        if (tw.gold !== null && tw.gold !== undefined) extras.push(`<span class="act" title="${esc(cardName("gold"))}">${cardIcon("gold", 20)}${banner(PLAYER_COLOURS[tw.gold % 6])}</span>`);
        if (tw.thief !== null && tw.thief !== undefined) extras.push(`<span class="act" title="${esc(cardName("thief"))}">${cardIcon("thief", 20)}${banner(PLAYER_COLOURS[tw.thief % 6])}</span>`);
        if (tw.obstacle !== null && tw.obstacle !== undefined) extras.push(`<span class="act" title="${esc(cardName(tw.obstacle_card))}">${cardIcon(tw.obstacle_card, 20)}${banner(PLAYER_COLOURS[tw.obstacle % 6])}</span>`);
        const ch = this.changes;
        const fresh = ch && ch.fresh.has(tw.ref);
        const arrive = ch && ch.arrived === tw.ref;
        const lc = this.lastChanges;
        const last = lc && (lc.fresh.has(tw.ref) || lc.arrived === tw.ref);
        const step = order.get(tw.ref);
        return `<div class="ktown t-${esc(tw.town)}${visited ? " visited" : ""}${next ? " next" : ""}${here ? " here" : ""}${fresh ? " fresh" : ""}${arrive ? " arrive" : ""}${last ? " last" : ""}" data-ref="${esc(tw.ref)}">
          ${arrive && ch.gain > 0 ? `<span class="gain">+${ch.gain}</span>` : ""}
          ${step ? `<span class="jstep"><span class="sr">${esc(t("koe.journeyStep", { n: step }))}</span><span aria-hidden="true">${step}</span></span>` : ""}
          ${cardIcon(tw.town, 46, tw.value)}
          <div class="kname">${esc(cardName(tw.town))} · ${esc(tn("koe.value", tw.value))}</div>
          <div class="acts">${extras.join("")}</div>
          ${here ? `<div class="kboot">${esc(t("koe.here"))}</div>` : ""}
          ${acts.map((a) => `<button type="button" class="mini can" data-action="${esc(a)}" title="${esc(this.describeAction(a))}">+ ${cardIcon(a.split(" ")[0], 18)}</button>`).join("")}
          ${rm ? `<button type="button" class="mini" data-action="${esc(rm)}">${esc(t("koe.remove"))}</button>` : ""}
        </div>`;
      }).join("");
      return `<section class="kingdom ${seatClass(k.owner)}${j && j.traveller === k.owner ? " travelling" : ""}" data-kingdom="${k.owner}">
        <header><svg viewBox="-16 -18 32 28" width="30" height="26" aria-hidden="true">${castleInner()}</svg>
          <span>${esc(t("koe.kingdom", { name: names[k.owner] }))}</span></header>
        <div class="ktowns">${towns || `<span class="muted small">${esc(t("koe.noTowns"))}</span>`}</div>
        ${plays.length ? `<div class="plays">${plays.map((a) => `<button type="button" class="mini can" data-action="${esc(a)}" title="${esc(this.describeAction(a))}">+ ${cardIcon(a.split(" ")[1], 22)}</button>`).join("")}</div>` : ""}
      </section>`;
    }).join("");
    const bank = over ? {} : v.bank || {};
    const journey = j ? `<div class="journey">
        <strong>${esc(t("koe.journeyOf", { name: names[j.traveller] }))}</strong>
        <span>${esc(t(j.direction === "clockwise" ? "koe.clockwise" : "koe.anticlockwise"))}</span>
        <span class="gold">+${j.earned ?? 0}</span> <span class="paid">−${j.paid ?? 0}</span>
        ${j.escort !== null && j.escort !== undefined ? `<span>${cardIcon("escort", 18)}</span>` : ""}
      </div>` : "";
    this.table.innerHTML = `<div class="centre">
        <div class="deck" title="${esc(t("koe.deck"))}"><span class="cardback big"></span> ${v.deck}</div>
        ${bank.gold !== undefined || bank.set_aside ? `<div class="bank">${esc(t("koe.bank"))}${bank.gold !== undefined ? `: ${bank.gold}` : ""}${bank.set_aside ? ` · ${esc(tn("koe.setAside", bank.set_aside))}` : ""}</div>` : ""}
        ${journey}
      </div>
      ${over ? `<h2 class="koe-end">${esc(t(this.lastTable ? "koe.endTable" : "koe.endNoTable"))}</h2>` : ""}
      <div class="kingdoms">${boxes}</div>`;
    this.table.onclick = (ev) => {
      const b = ev.target.closest("button[data-action]");
      if (b) this.ctx.act(b.dataset.action);
    };
  }

  renderControls() {
    const v = this.view;
    const me = v.viewer !== null && v.viewer !== undefined ? v.players[v.viewer] : null;
    const simple = [];
    const visits = [];
    const discards = new Map();
    const takes = [];
    for (const a of this.legal) {
      const w = a.split(/\s+/);
      if (w[0] === "visit" || w[0] === "spell") visits.push(a);
      else if (w[0] === "discard") discards.set(w[1], a);
      else if (w[0] === "take") takes.push(a);
      else if (["draw", "buy", "no-town-card", "pass", "escort", "reverse", "stop"].includes(w[0])) simple.push(a);
    }
    const parts = [];
    if (visits.length) {
      parts.push(`<div class="lbl">${esc(t("koe.visitWith"))}</div><div class="opt-grid">${visits.map((a) => {
        const [verb, cards] = a.split(/\s+/);
        const counted = [];
        for (const c of cards.split("+")) {
          const g = counted.find((x) => x.c === c);
          if (g) g.n += 1; else counted.push({ c, n: 1 });
        }
        const words = counted.map(({ c, n }) => `${n} × ${cardName(c)}`).join(", ");
        return `<button type="button" class="opt combo can" data-action="${esc(a)}" title="${esc(this.describeAction(a))}">
          <span class="combo-icons" aria-hidden="true">${cards.split("+").map((c) => cardIcon(c, 20)).join("")}</span>
          <span class="combo-text">${verb === "spell" ? `<b>${esc(t("koe.spell"))}:</b> ` : ""}${esc(words)}</span></button>`;
      }).join("")}</div>`);
    }
    if (takes.length) {
      parts.push(`<div class="lbl">${esc(t("koe.take"))}</div><div class="row">${takes.map((a) => `<button type="button" class="token can" data-action="${esc(a)}">${cardIcon(a.split(" ")[1].replace(/-\d+$/, ""), 30)}</button>`).join("")}</div>`);
    }
    if (simple.length) {
      parts.push(`<div class="row">${simple.map((a) => `<button type="button" class="${a === "pass" || a === "stop" ? "secondary" : "primary"}" data-action="${esc(a)}">${esc(this.describeAction(a))}</button>`).join("")}</div>`);
    }
    if (me) {
      const hand = [...(me.hand || [])];
      const order = [...TERRAINS, ...TRANSPORTS, ...ACTION_CARDS];
      hand.sort((a, b) => order.indexOf(a) - order.indexOf(b));
      // The hand by kind: one entry per kind with its name and count (14 loose icons
      // are hard to read); while discarding each kind is one button.
      const groups = [];
      for (const k of hand) {
        const g = groups[groups.length - 1];
        if (g && g.kind === k) g.n += 1; else groups.push({ kind: k, n: 1 });
      }
      const discarding = discards.size > 0;
      const label = discarding && v.pending_count ? tn("koe.discardMore", v.pending_count) : (discarding ? t("discard.choose") : holderLabel("koe.hand", "koe.handOf", this.owner()));
      parts.push(`<div class="lbl">${esc(label)}</div>
        <ul class="hand-groups${discarding ? " discarding" : ""}">${groups.map(({ kind, n }) => {
          const a = discards.get(kind);
          const inner = `${cardIcon(kind, 26)}<span class="gname">${esc(cardName(kind))}</span><b class="gcount">×${n}</b>`;
          return `<li data-kind="${esc(kind)}">${a ? `<button type="button" class="hgroup can" data-action="${esc(a)}" title="${esc(this.describeAction(a))}">${inner}</button>`
            : `<span class="hgroup">${inner}</span>`}</li>`;
        }).join("") || `<li class="muted">${esc(t("hand.empty"))}</li>`}</ul>`);
      parts.push(`<div class="row small"><span>${esc(holderLabel("koe.yourGold", "koe.goldOf", this.owner(), { n: me.gold ?? "?" }))}</span>
        <span>${banner(PLAYER_COLOURS[v.viewer % 6])} × ${me.banners}</span>
        ${me.next_price && v.phase === "building" ? `<span class="muted">${esc(tn("koe.nextPrice", me.next_price))}</span>` : ""}</div>`);
    }
    this.controlsEl.innerHTML = parts.join("");
    this.controlsEl.onclick = (ev) => {
      const b = ev.target.closest("button[data-action]");
      if (b) this.ctx.act(b.dataset.action);
    };
  }

  helpKey() {
    const v = this.view;
    if (!v || v.current_player === null || v.current_player === undefined) return "help.over";
    if (v.current_player !== v.viewer) return v.phase === "journey" ? "koe.help.watchJourney" : "koe.help.watchBuilding";
    if (v.pending) return "koe.help.pending";
    return v.phase === "journey" ? "koe.help.journey" : "koe.help.building";
  }

  /** Whose hand the page shows when it is not the player's own (a replay viewed as
   * another seat: its name), else null. */
  owner() { return this.ctx.owner ? this.ctx.owner() : null; }

  phaseName() { return t(`phase.${this.view.phase}`); }

  panelHTML(p) {
    const v = this.view;
    return `<div class="stats">
      <span title="${esc(t("panel.cards"))}"><i class="cardback"></i> <b>${p.cards}</b></span>
      <span title="${esc(t("koe.banners"))}">${banner(PLAYER_COLOURS[p.seat % 6])} <b>${p.banners}</b></span>
      <span title="${esc(t("final.gold"))}" class="gold">● <b>${p.gold ?? "?"}</b></span>
      ${p.dragon ? `<span class="badge" title="${esc(t("koe.dragon"))}">${esc(t("koe.dragon"))}</span>` : ""}
      ${v.scores ? `<span>★ <b>${v.scores[p.seat]}</b></span>` : ""}
    </div>`;
  }

  describeAction(a) {
    const w = a.split(/\s+/);
    const town = (ref) => {
      const [k, i] = (ref || "").split(".").map(Number);
      const tw = this.view.kingdoms.find((x) => x.owner === k)?.towns[i];
      return tw ? `${cardName(tw.town)} (${this.ctx.names()[k]})` : ref;
    };
    switch (w[0]) {
      case "play": return t("koe.act.play", { card: cardName(w[1]), name: this.ctx.names()[Number(w[3])] });
      case "visit": return t("koe.act.visit", { cards: w[1].split("+").map(cardName).join(", ") });
      case "spell": return t("koe.act.spell", { cards: w[1].split("+").map(cardName).join(", ") });
      case "gold": case "thief": case "tree": case "sea-monster":
        return t("koe.act.card", { card: cardName(w[0]), town: town(w[1]) });
      case "remove": return t("koe.act.remove");
      case "take": return t("koe.act.take", { card: cardName(w[1].replace(/-\d+$/, "")) });
      case "discard": return t("koe.act.discard", { card: cardName(w[1]) });
      default: return t(`koe.act.${w[0]}`);
    }
  }

  /** The town card a log entry's town ref named when it was played: looked up in the
   * view just before the action (a removed town is gone after it) or just after it. */
  townOf(e, ref) {
    if (e.town_kind) return e.town_kind; // the engine names the town's kind in its log
    if (!this.townMemo.has(e.seq)) {
      const find = (v) => {
        if (!v || !ref) return null;
        const [k, i] = ref.split(".").map(Number);
        const tw = v.kingdoms.find((x) => x.owner === k)?.towns[i];
        return tw ? tw.town : null;
      };
      let kind = null;
      if (this.prev && this.prev.seq === e.seq - 1 && this.view.seq === e.seq) kind = find(this.prev);
      if (!kind && this.view.seq === e.seq && !String(e.action).startsWith("remove")) kind = find(this.view);
      if (!kind && this.view.seq !== e.seq) return null; // an older entry: not knowable now
      this.townMemo.set(e.seq, kind);
    }
    return this.townMemo.get(e.seq);
  }

  /** "Forest (kingdom of Bob)", or "a town of Bob's kingdom" when the town is not known. */
  townText(e, ref) {
    const owner = this.ctx.names()[Number(String(ref).split(".")[0])] ?? "?";
    const kind = this.townOf(e, ref);
    return kind ? t("koe.log.townOf", { town: cardName(kind), owner })
      : t("koe.log.someTown", { owner });
  }

  /** A log entry as a sentence. */
  describe(e) {
    const names = this.ctx.names();
    const name = names[e.player] || t("seat.n", { n: (e.player ?? 0) + 1 });
    const w = String(e.action).split(/\s+/);
    const cards = (list) => list.map(cardName).join(", ");
    switch (w[0]) {
      case "play":
        return t("koe.log.play", { name, card: cardName(w[1]), owner: names[Number(w[3])] ?? w[3] });
      case "no-town-card":
        return t("koe.log.noTownCard", { name, cards: cards(e.hand || []) });
      case "take":
        return t("koe.log.take", { name, card: cardName(w[1].replace(/-\d+$/, "")) });
      case "draw":
        return e.cards ? t("koe.log.drawSeen", { name, cards: cards(e.cards) })
          : tn("koe.log.draw", e.drew ?? 3, { name });
      case "discard":
        return t("koe.log.discard", { name, card: cardName(w[1]) });
      case "buy":
        return e.card ? tn("koe.log.buySeen", e.price ?? "?", { name, card: cardName(e.card) })
          : tn("koe.log.buy", e.price ?? "?", { name });
      case "gold": case "thief": case "tree": case "sea-monster":
        return t("koe.log.card", { name, card: cardName(w[0]), town: this.townText(e, w[1]) });
      case "remove":
        return tn("koe.log.remove", e.cost ?? "?", { name });
      case "pass":
        return t("koe.log.pass", { name });
      case "visit": case "spell": {
        const parts = [tn(w[0] === "visit" ? "koe.log.visit" : "koe.log.spell", e.earned ?? 0, {
          name, town: e.town ? this.townText(e, e.town) : "?",
          cards: cards(w[1].split("+")),
        })];
        if (e.thief !== undefined) parts.push(t("koe.log.thief", { owner: names[e.thief] ?? "?" }));
        if (e.bonus) parts.push(t("koe.log.bonus", { n: e.bonus }));
        return parts.join(" ");
      }
      case "escort":
        return t("koe.log.escort", { name, owner: names[e.kingdom] ?? "?" });
      case "reverse":
        return t("koe.log.reverse", { name });
      case "stop":
        return t("koe.log.stop", { name, gold: goldText(e.earned ?? 0, e.paid ?? 0) || t("gold.none") });
      default:
        return `${name}: ${this.describeAction(e.action)}`;
    }
  }

  /** What a confirmation asks before the action is sent. */
  confirmText(a) { return t("confirm.ask", { what: this.describeAction(a) }); }

  /** The final table's detail column: the gold is the score already, so nothing more. */
  scoreDetail() { return ""; }

  /** Town ref -> its place (1 = next) in the traveller's journey from here, in the
   * journey's direction around the table (kingdom by kingdom, each right to left). */
  journeyOrder(j, kingdoms) {
    const out = new Map();
    if (!j || !j.next) return out;
    const ring = kingdoms.flatMap((k) => k.towns.map((tw) => tw.ref));
    const start = ring.indexOf(j.next);
    if (start < 0) return out;
    const dir = j.direction === "clockwise" ? 1 : -1;
    for (let s = 0; s < ring.length; s += 1) {
      out.set(ring[((start + dir * s) % ring.length + ring.length) % ring.length], s + 1);
    }
    return out;
  }

  destroy() {}
}
