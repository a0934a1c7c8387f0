// The leaderboard (#/leaderboard): OpenSkill ratings per game kind, players and bot
// levels together, best first (rating = mu - 3 sigma).
import { applyI18n, t } from "./i18n.js";
import { showError } from "./notify.js";
import { playerApi, savedPlayer } from "./players.js";

const GAMES = ["elfenland", "king-of-the-elves"];
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class LeaderboardPage {
  constructor(app) { this.app = app; this.game = GAMES[0]; }

  async start() {
    this.app.innerHTML = `<section class="card leaderboard">
      <h1 data-i18n="leaderboard.title"></h1>
      <div class="row" role="tablist">${GAMES.map((g) => `<button type="button" class="secondary" data-board="${g}" data-i18n="game.${g}"></button>`).join("")}</div>
      <p class="muted small" data-i18n="leaderboard.help"></p>
      <table class="scores" id="board"><thead><tr><th>#</th><th data-i18n="final.player"></th>
        <th data-i18n="leaderboard.rating"></th><th data-i18n="leaderboard.games"></th></tr></thead><tbody></tbody></table>
      <a class="button secondary" href="#/" data-i18n="nav.lobby"></a></section>`;
    for (const b of this.app.querySelectorAll("[data-board]")) {
      b.addEventListener("click", () => { this.game = b.dataset.board; this.load(); });
    }
    applyI18n(this.app);
    await this.load();
  }

  async load() {
    const me = savedPlayer();
    try {
      const { ratings } = await playerApi.ratings(this.game);
      for (const b of this.app.querySelectorAll("[data-board]")) b.classList.toggle("primary", b.dataset.board === this.game);
      const body = this.app.querySelector("#board tbody");
      body.innerHTML = ratings.length ? ratings.map((r, i) => `<tr class="${me && me.id === r.player ? "win" : ""}" data-player="${esc(r.player)}">
        <td>${i + 1}</td><td>${esc(r.bot ? t(`level.${r.player.slice(4)}`) + " " + t("leaderboard.bot") : r.name)}</td>
        <td class="num">${r.rating.toFixed(1)}</td><td class="num">${r.games}</td></tr>`).join("")
        : `<tr><td colspan="4" class="muted">${esc(t("leaderboard.empty"))}</td></tr>`;
    } catch (err) { showError(err); }
  }

  relabel() { applyI18n(this.app); this.load(); }
}
