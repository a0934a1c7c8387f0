// The lobby's player settings (one panel: the name comes from the lobby's one name
// field; the optional webhook; the browser's notifications) and which of the player's
// running games wait for them (marked in "Your games", each game listed once).
import { savedSeat } from "./api.js";
import { t } from "./i18n.js";
import { showError, toast } from "./notify.js";
import { playerApi, savePlayer, savedPlayer } from "./players.js";
import { drawDeviceBox } from "./device.js";

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function playerPanelHTML() {
  const p = savedPlayer();
  return `<details class="card settings" id="player-panel"><summary><h2 data-i18n="player.title"></h2></summary>
    <form id="player-form" class="player-form" autocomplete="off">
      <p class="muted small" data-i18n="player.nameFrom"></p>
      <label><span data-i18n="player.webhook"></span>
        <input name="webhook" type="url" maxlength="500" value="${esc(p && p.webhook ? p.webhook : "")}" placeholder="https://…"></label>
      <p class="muted small" data-i18n="player.webhookHelp"></p>
      <p class="notify-row"><span id="notify-state"></span>
        <button type="button" class="link" id="notify-allow" data-i18n="notify.ask" hidden></button></p>
      <button type="submit" class="secondary" id="player-save" data-i18n="player.save"></button>
      <a href="#/leaderboard" id="leaderboard-link" data-i18n="leaderboard.link"></a>
    </form>
    <div id="device-box" class="device-box" hidden></div></details>`;
}

function drawNotify(root) {
  const state = root.querySelector("#notify-state");
  const allow = root.querySelector("#notify-allow");
  const perm = "Notification" in window ? Notification.permission : "unsupported";
  state.textContent = t(`notify.state.${perm}`);
  allow.hidden = perm !== "default";
}

export function wirePlayerPanel(root, createForm) {
  const form = root.querySelector("#player-form");
  drawNotify(root);
  drawDeviceBox(root);
  root.querySelector("#notify-allow").addEventListener("click", async () => {
    try { await Notification.requestPermission(); } catch { /* the browser said no */ }
    drawNotify(root);
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = createForm.name.value.trim();
    if (!name) {
      toast(t("player.nameFirst"), "error");
      createForm.name.focus();
      return;
    }
    try {
      await savePlayer(name, form.webhook.value.trim());
      toast(t("player.saved"), "info");
      drawDeviceBox(root);
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
