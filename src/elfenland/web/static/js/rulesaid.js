// The rules at hand: a dialog with the transport × terrain cost table and a short
// explanation of every rule, rule set and variant of the three games, opened from the top bar
// (at the table it shows the game being played) or from the lobby's "Explain" links.
import { applyI18n, t } from "./i18n.js";
import { transportIcon } from "./icons.js";

const TERRAINS = ["plains", "forest", "desert", "mountain"];
/** Cards one step costs, by transport and terrain (null: not allowed); the same table as
 * elfenland.core.transport.COST_TABLE. */
const COSTS = {
  "giant-pig": [1, 1, null, null],
  elfcycle: [1, 1, null, 2],
  "magic-cloud": [2, 2, null, 1],
  unicorn: [null, 1, 2, 1],
  "troll-wagon": [1, 2, 2, 2],
  dragon: [1, 2, 1, 1],
};
/** The sections of each game, in reading order: [anchor, i18n key]. */
export const SECTIONS = {
  elfenland: [["goal", "aid.elf.goal"], ["round", "aid.elf.round"], ["costs", null],
    ["rivers", "aid.elf.rivers"], ["lakes", "aid.elf.lakes"], ["caravan", "aid.elf.caravan"],
    ["obstacle", "aid.elf.obstacle"], ["discard", "aid.elf.discard"],
    ["scoring", "aid.elf.scoring"], ["amigo", "aid.elf.amigo"], ["moon", "aid.elf.moon"],
    ["destination", "aid.elf.destination"], ["route_hint", "aid.elf.routeHint"]],
  "king-of-the-elves": [["goal", "aid.koe.goal"], ["building", "aid.koe.building"],
    ["order", "aid.koe.order"], ["costs", "aid.koe.costs"], ["gold", "aid.koe.gold"],
    ["thief", "aid.koe.thief"], ["tree", "aid.koe.tree"], ["sea-monster", "aid.koe.seaMonster"],
    ["escort", "aid.koe.escort"], ["change-of-direction", "aid.koe.reverse"],
    ["magic_spell", "aid.koe.magic_spell"], ["weak_gold", "aid.koe.weak_gold"],
    ["gold_for_all", "aid.koe.gold_for_all"]],
  elfengold: [["goal", "aid.eg.goal"], ["round", "aid.eg.round"], ["auction", "aid.eg.auction"],
    ["items", "aid.eg.items"], ["spells", "aid.eg.spells"], ["gold", "aid.eg.gold"],
    ["costs", "aid.eg.costs"], ["keep", "aid.eg.keep"], ["witch", "aid.eg.witch"],
    ["random_gold", "aid.eg.random_gold"], ["town_cards", "aid.eg.town_cards"],
    ["secret_gold", "aid.eg.secret_gold"]],
};

function costTable() {
  const head = TERRAINS.map((k) => `<th scope="col">${t(`terrain.${k}`)}</th>`).join("");
  const rows = Object.entries(COSTS).map(([kind, costs]) => `<tr><th scope="row">
      <span class="aid-tr">${transportIcon(kind, 22)} ${t(`transport.${kind}`)}</span></th>
      ${costs.map((c) => `<td>${c === null ? "–" : c}</td>`).join("")}</tr>`).join("");
  return `<table class="cost-table"><thead><tr><th scope="col">${t("aid.transport")}</th>${head}</tr></thead>
    <tbody>${rows}</tbody></table><p class="small">${t("aid.costsText")}</p>`;
}

function sectionHTML(game, [anchor, key]) {
  const body = anchor === "costs" && game === "elfenland" ? costTable()
    : `<p>${t(key)}</p>${anchor === "costs" ? costTable() : ""}`;
  return `<section class="aid-sec" data-aid="${anchor}">${body}</section>`;
}

let dialog = null;

export function closeRules() {
  if (!dialog) return;
  const back = dialog.back;
  dialog.box.remove();
  dialog = null;
  if (back && back.isConnected && back.focus) back.focus();
}

/** Open the aid for `game`, scrolled to `anchor` (a section, a rule set or a variant). */
export function openRules(game = "elfenland", anchor = null) {
  const back = dialog ? dialog.back : document.activeElement;
  if (dialog) dialog.box.remove();
  const box = document.createElement("div");
  box.className = "aid-backdrop";
  box.innerHTML = `<div class="aid" role="dialog" aria-modal="true" aria-labelledby="aid-title" tabindex="-1">
    <header class="aid-head"><h2 id="aid-title">${t("aid.title")}</h2>
      <button type="button" class="secondary" id="aid-close">${t("aid.close")}</button></header>
    <div class="aid-tabs" role="tablist">${Object.keys(SECTIONS).map((g) => `<button type="button" role="tab"
      aria-selected="${g === game}" data-aid-game="${g}" class="${g === game ? "primary" : "secondary"}">${t(`game.${g}`)}</button>`).join("")}</div>
    <div class="aid-body" id="aid-body" tabindex="0">${SECTIONS[game].map((s) => sectionHTML(game, s)).join("")}</div></div>`;
  document.body.appendChild(box);
  dialog = { box, back, game };
  box.addEventListener("click", (ev) => {
    if (ev.target === box) { closeRules(); return; }
    const b = ev.target.closest("button");
    if (!b) return;
    if (b.id === "aid-close") closeRules();
    else if (b.dataset.aidGame) openRules(b.dataset.aidGame);
  });
  box.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { ev.preventDefault(); ev.stopPropagation(); closeRules(); }
  });
  const target = anchor && box.querySelector(`[data-aid="${anchor}"]`);
  if (target) {
    target.classList.add("focus");
    target.scrollIntoView({ block: "start" });
  }
  box.querySelector("#aid-close").focus();
}

/** The top bar's "Rules" button: the game on the table, else Elfenland. */
export function installRulesButton() {
  const bar = document.getElementById("topbar");
  if (!bar || document.getElementById("rules-btn")) return;
  const b = document.createElement("button");
  b.type = "button";
  b.id = "rules-btn";
  b.className = "secondary rules-btn";
  b.dataset.i18n = "aid.open";
  b.textContent = t("aid.open");
  b.addEventListener("click", () => {
    const page = window.__elfenland && window.__elfenland.page;
    const game = (page && page.view && page.view.game)
      || (document.querySelector("#create-form select[name=game]") || {}).value || "elfenland";
    openRules(game);
  });
  bar.insertBefore(b, document.getElementById("conn"));
  applyI18n(bar);
}

/** Reopen in the new language, if open. */
export function relabelRules() {
  if (dialog) openRules(dialog.game);
}
