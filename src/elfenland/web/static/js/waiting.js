// The lobby's "Games waiting for you": the running games where it is one of this
// browser's seats' turn (seat tokens kept here, and the player's games on the server),
// and the player box (name kept across games, optional webhook).
import { savedSeat } from "./api.js";
import { applyI18n, t } from "./i18n.js";
import { showError, toast } from "./notify.js";
import { playerApi, savePlayer, savedPlayer } from "./players.js";

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function waitingHTML() {
  const p = savedPlayer();
  return `<section class="card waiting-list" id="waiting-box">
    <h2 data-i18n="waiting.title"></h2>
    <div id="waiting-games" class="games"></div>
    <form id="player-form" class="player-form" autocomplete="off">
      <h3 data-i18n="player.title"></h3>
      <label><span data-i18n="player.name"></span>
        <input name="pname" maxlength="40" required value="${esc(p ? p.name : "")}"></label>
      <label><span data-i18n="player.webhook"></span>
        <input name="webhook" type="url" maxlength="500" value="${esc(p && p.webhook ? p.webhook : "")}" placeholder="https://…"></label>
      <button type="submit" class="secondary" id="player-save" data-i18n="player.save"></button>
      <a href="#/leaderboard" id="leaderboard-link" data-i18n="leaderboard.link"></a>
    </form></section>`;
}

export function wireWaiting(root) {
  const form = root.querySelector("#player-form");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await savePlayer(form.pname.value.trim(), form.webhook.value.trim());
      toast(t("player.saved"), "info");
    } catch (err) { showError(err); }
  });
}

/** The player's unfinished games from the server (id -> summary with `seat`), or an
 * empty map without a player (or with a token the server no longer knows). */
export async function fetchPlayerGames() {
  const out = new Map();
  const p = savedPlayer();
  if (!p) return out;
  try {
    const { games } = await playerApi.games(p.token);
    for (const g of games) out.set(g.id, g);
  } catch { /* an unknown player token: the local seats still count */ }
  return out;
}

/** The running games where it is one of this browser's seats' turn, or the player's. */
export function waitingGames(allGames, playerGames) {
  const seen = new Map();
  for (const g of allGames) {
    const s = savedSeat(g.id);
    if (s && g.status === "running" && g.to_act === s.seat) seen.set(g.id, g);
  }
  for (const g of playerGames.values()) {
    if (g.status === "running" && g.to_act === g.seat) seen.set(g.id, g);
  }
  return [...seen.values()];
}

/** Draw the list (the lobby keeps the games up to date from its feed). */
export function drawWaiting(root, list) {
  const box = root.querySelector("#waiting-games");
  if (!box) return;
  box.innerHTML = list.length ? list.map((g) => `<div class="game-row waiting-row" data-game="${esc(g.id)}">
      <div><strong>${esc(t(`game.${g.game}`))}</strong>
        ${g.clock && g.clock.deadline ? `<span class="muted small"> · ${esc(t("waiting.until", { time: new Date(g.clock.deadline * 1000).toLocaleString() }))}</span>` : ""}</div>
      <a class="button primary" href="#/game/${esc(g.id)}" data-i18n="waiting.play"></a></div>`).join("")
    : `<p class="muted" data-i18n="waiting.none"></p>`;
  applyI18n(box);
}
