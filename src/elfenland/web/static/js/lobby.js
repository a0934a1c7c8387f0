// The lobby: create a game (which game, rule set, variants, who sits where), see the
// open games and join one, and come back to the games this browser holds a seat in.
import { api, saveName, saveSeat, savedName, savedSeat } from "./api.js";
import { applyI18n, t } from "./i18n.js";
import { showError } from "./notify.js";
import { readTempo, tempoFieldsHTML, wireTempo } from "./tempo.js";
import { renderWaiting, waitingHTML, wireWaiting } from "./waiting.js";
import { playerToken } from "./players.js";
import { afterCreate, applyHotseat, hotseatFieldHTML } from "./hotseat.js";
import { openRules } from "./rulesaid.js";

export const BOT_LEVELS = ["random", "greedy", "search"];
const GAMES = [
  { id: "elfenland", min: 2, max: 6 },
  { id: "king-of-the-elves", min: 2, max: 6 },
];

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
  } else {
    for (const k of ["magic_spell", "weak_gold", "gold_for_all"]) {
      if (g.options && g.options[k]) bits.push(t(`opt.${k}`));
    }
  }
  // A seed the creator chose predicts every hand: everyone sees it (issue #12).
  if (g.seed_chosen) bits.push(t("opt.seedChosen", { seed: g.seed }));
  return bits.join(" · ");
}

function seatRow(i, kind, level) {
  return `<div class="seat-row" data-seat-row="${i}">
    <span class="seat-no">${i + 1}</span>
    <select name="kind-${i}" data-kind="${i}" aria-label="${esc(t("lobby.seatKind", { n: i + 1 }))}">
      ${["human", "open", "bot"].map((k) => `<option value="${k}"${k === kind ? " selected" : ""}
        data-i18n="seatkind.${k}"></option>`).join("")}
    </select>
    <select name="level-${i}" data-level="${i}" aria-label="${esc(t("lobby.seatLevel", { n: i + 1 }))}"${kind === "bot" ? "" : " hidden"}>
      ${BOT_LEVELS.map((l) => `<option value="${l}"${l === level ? " selected" : ""} data-i18n="level.${l}"></option>`).join("")}
    </select>
  </div>`;
}

export function renderLobby(app) {
  const root = document.createElement("div");
  root.className = "lobby";
  root.innerHTML = `${waitingHTML()}
  <section class="card create">
    <h1 data-i18n="lobby.create"></h1>
    <form id="create-form" autocomplete="off">
      <label><span data-i18n="lobby.yourName"></span>
        <input name="name" maxlength="40" value="${esc(savedName())}" data-i18n-placeholder="lobby.namePlaceholder"></label>
      <label><span data-i18n="lobby.game"></span>
        <select name="game">${GAMES.map((g) => `<option value="${g.id}" data-i18n="game.${g.id}"></option>`).join("")}</select></label>
      <div class="elf-only">
        <label><span data-i18n="lobby.rules"></span>
          <select name="rules"><option value="amigo" data-i18n="rules.amigo"></option>
          <option value="moon" data-i18n="rules.moon"></option></select></label>
        <button type="button" class="link" data-explain="elfenland:rules" data-i18n="aid.explain"></button>
        <label class="check"><input type="checkbox" name="destination">
          <span data-i18n="opt.destination"></span></label>
        <button type="button" class="link" data-explain="elfenland:destination" data-i18n="aid.explain"></button>
        <p class="muted small" data-i18n="opt.destinationHelp"></p>
      </div>
      <div class="koe-only" hidden>
        <label class="check"><input type="checkbox" name="magic_spell"><span data-i18n="opt.magic_spell"></span></label>
        <label class="check"><input type="checkbox" name="weak_gold"><span data-i18n="opt.weak_gold"></span></label>
        <label class="check"><input type="checkbox" name="gold_for_all"><span data-i18n="opt.gold_for_all"></span></label>
        <button type="button" class="link" data-explain="king-of-the-elves:magic_spell" data-i18n="aid.explain"></button>
      </div>
      <label><span data-i18n="lobby.players"></span>
        <select name="players">${[2, 3, 4, 5, 6].map((n) => `<option${n === 4 ? " selected" : ""}>${n}</option>`).join("")}</select></label>
      <fieldset class="seats"><legend data-i18n="lobby.seats"></legend><div id="seat-rows"></div></fieldset>
      ${hotseatFieldHTML()}
      ${tempoFieldsHTML()}
      <button type="submit" class="primary big" id="create-btn" data-i18n="lobby.createBtn"></button>
    </form>
  </section>
  <section class="card list">
    <h2 data-i18n="lobby.open"></h2>
    <div id="open-games" class="games"></div>
    <h2 data-i18n="lobby.mine"></h2>
    <div id="my-games" class="games"></div>
    <h2 data-i18n="lobby.about"></h2>
    <p class="muted" data-i18n="lobby.aboutText"></p>
  </section>`;
  app.appendChild(root);
  const form = root.querySelector("#create-form");
  const rows = root.querySelector("#seat-rows");
  const kinds = ["human", "bot", "bot", "bot", "bot", "bot"];
  const levels = ["greedy", "greedy", "greedy", "greedy", "greedy", "greedy"];

  const drawSeats = () => {
    const n = Number(form.players.value);
    rows.innerHTML = Array.from({ length: n }, (_, i) => seatRow(i, kinds[i], levels[i])).join("");
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
  const showVariants = () => {
    const koe = form.game.value === "king-of-the-elves";
    root.querySelector(".elf-only").hidden = koe;
    root.querySelector(".koe-only").hidden = !koe;
  };
  form.game.addEventListener("change", showVariants);
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
  wireWaiting(root);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const n = Number(form.players.value);
    const game = form.game.value;
    const options = {};
    let rules = null;
    if (game === "elfenland") {
      rules = form.rules.value;
      options.destination = form.destination.checked;
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
      // You and bots only: nobody to wait for, so the game starts at once.
      if (res.token && !seats.some((s) => s.kind === "open")) {
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
  let stopped = false;
  let timer = null;
  const refresh = async () => {
    try {
      // A game this browser holds a seat in is "yours", never one to join.
      const games = (await api.games("open")).games.filter((g) => !savedSeat(g.id));
      openBox.innerHTML = games.length ? games.map((g) => gameRow(g, "join")).join("")
        : `<p class="muted" data-i18n="lobby.noOpen"></p>`;
      const all = await api.games();
      await renderWaiting(root, all.games);
      const rank = { running: 0, open: 1, finished: 2 };
      const mine = all.games.filter((g) => savedSeat(g.id))
        .sort((a, b) => (rank[a.status] ?? 3) - (rank[b.status] ?? 3));
      mineBox.innerHTML = mine.length ? mine.map((g) => gameRow(g, "resume")).join("")
        : `<p class="muted" data-i18n="lobby.noMine"></p>`;
      applyI18n(openBox);
      applyI18n(mineBox);
    } catch (err) {
      openBox.innerHTML = `<p class="error-text">${esc(err.message)}</p>`;
    }
    if (!stopped) timer = setTimeout(refresh, 4000);
  };
  refresh();
  return {
    destroy() { stopped = true; clearTimeout(timer); },
    relabel() { applyI18n(root); refreshLabels(); },
  };

  function refreshLabels() {
    clearTimeout(timer);
    refresh();
  }
}

function gameRow(g, what) {
  const taken = g.seats.filter((s) => s.kind !== "open").length;
  return `<div class="game-row" data-game="${esc(g.id)}">
    <div><strong>${esc(gameTitle(g.game))}</strong> <span class="muted">${esc(rulesLabel(g))}</span>
      <div class="small">${g.seats.map((s) => `<span class="seat-chip ${s.kind}">${esc(seatLabel(s))}</span>`).join(" ")}</div>
      <div class="small muted">${esc(t("lobby.seatsTaken", { n: taken, total: g.players }))} ·
        ${esc(t(`status.${g.status}`))}</div></div>
    <a class="button ${what === "join" ? "primary" : "secondary"}" href="#/game/${esc(g.id)}"
      data-i18n="lobby.${what}"></a>
  </div>`;
}
