// The page's entry: languages, the toasts for errors, and the routes
// #/ (lobby), #/game/<id> (a table), #/replay/<id> (a finished game step by step) and
// #/player/<token> (this device becomes a player: the link another device offers).
import { applyI18n, currentLang, initI18n, onLangChange, setLang } from "./i18n.js";
import { renderLobby } from "./lobby.js";
import { GamePage, loadMap } from "./game.js";
import { ReplayPage } from "./replay.js";
import { LeaderboardPage } from "./leaderboard.js";
import { DevicePage } from "./device.js";
import { installRulesButton, relabelRules } from "./rulesaid.js";

let page = null;

async function route() {
  if (page && page.destroy) page.destroy();
  page = null;
  // Each page draws into a container of its own. A page left behind may still finish
  // what it was awaiting (a table's first answer arriving after the player went back to
  // the lobby) and draw it: into its container, no longer on the page, never over the
  // page the player is on now.
  const main = document.getElementById("app");
  main.textContent = "";
  const app = document.createElement("div");
  app.className = "route-page";
  main.append(app);
  document.getElementById("status").textContent = "";
  document.getElementById("conn").hidden = true;
  const hash = location.hash || "#/";
  const m = hash.match(/^#\/(game|replay)\/([A-Za-z0-9_-]+)/);
  // Elfenland and Elfengold tables draw the board: start fetching it with the table's
  // first view (a King of the Elves table leaves it unused; the lobby never asks).
  if (m) loadMap().catch(() => {});
  const device = hash.match(/^#\/player\/([A-Za-z0-9_-]+)/);
  if (device) page = new DevicePage(app, device[1]);
  else if (m && m[1] === "game") page = new GamePage(app, m[2]);
  else if (m && m[1] === "replay") page = new ReplayPage(app, m[2]);
  else if (hash.startsWith("#/leaderboard")) page = new LeaderboardPage(app);
  else page = renderLobby(app);
  if (page && page.start) await page.start();
  applyI18n(document);
}

async function boot() {
  await initI18n();
  const sel = document.getElementById("lang-select");
  sel.value = currentLang();
  sel.addEventListener("change", () => setLang(sel.value));
  onLangChange(() => {
    sel.value = currentLang();
    if (page && page.relabel) page.relabel();
  });
  onLangChange(relabelRules);
  installRulesButton();
  applyI18n(document);
  window.addEventListener("hashchange", route);
  await route();
  document.body.dataset.ready = "1";
}

boot();
