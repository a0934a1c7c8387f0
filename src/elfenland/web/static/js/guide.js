// "Learn to play": a first table (Elfenland, or a short one of King of the Elves) against
// an easy bot on a fixed deal, with a
// guide beside the board. At each of the player's turns it says what to do and why and
// points at one thing to click (the pulsing outline); any other legal move is fine too —
// the guide reads the table again after every move. It ends when the first round does.
import { api, saveName, saveSeat, savedName } from "./api.js";
import { t } from "./i18n.js";

const KEY = "elfenland.tutorial";
/** The deal every first game gets: a round with every phase, a discard and a keep. */
export const TUTORIAL_SEED = 2026;

export function isTutorial(gameId) {
  try { return (JSON.parse(localStorage.getItem(KEY) || "[]")).includes(gameId); } catch { return false; }
}

function markTutorial(gameId) {
  let list = [];
  try { list = JSON.parse(localStorage.getItem(KEY) || "[]"); } catch { list = []; }
  localStorage.setItem(KEY, JSON.stringify([...list.slice(-20), gameId]));
}

/** Create and start the tutorial table of `game`, then open it. */
export async function startTutorial(name, game = "elfenland") {
  const who = (name || savedName() || "").trim();
  if (who) saveName(who);
  const elf = game !== "king-of-the-elves";
  const res = await api.create({
    game: elf ? "elfenland" : game, players: 2, name: who || null, seed: TUTORIAL_SEED,
    seats: [{ kind: "human" }, { kind: "bot", level: "random" }],
    options: elf ? { route_hint: true } : {},
  });
  saveSeat(res.game.id, res.seat, res.token, who);
  markTutorial(res.game.id);
  await api.start(res.game.id, { token: res.token });
  location.hash = `#/game/${res.game.id}`;
}

/** [step, selector of the thing to point at] for the player's turn in `view`. */
function stepOf(view, root) {
  if (view.round > 1 || view.scores) return [view.game === "king-of-the-elves" ? "koeDone" : "done", null];
  if (view.current_player !== view.viewer) return ["watch", null];
  if (view.game === "king-of-the-elves") return kingStep(view, root);
  if (view.discarding) {
    return root.querySelector("#discard-go") ? ["discardGo", "#discard-go"] : ["discard", "[data-dpick]:not([disabled]):not(.on)"];
  }
  switch (view.phase) {
    case "draw-secret": return ["secret", "[data-action='draw secret']"];
    case "draw-counters": return ["counters", ".faceup [data-action]"];
    case "place":
      return root.querySelector(".board .road-target") ? ["place", ".board .road-target"] : ["pass", "[data-action='pass']"];
    case "move":
      return root.querySelector(".board .town[data-action], .board .town[data-menu]")
        ? ["move", ".board .town[data-action], .board .town[data-menu]"] : ["end", "[data-action='end']"];
    case "keep": return ["keep", "[data-action^='keep']"];
    default: return ["watch", null];
  }
}

/** The same for King of the Elves' first round: build, then travel. */
function kingStep(view, root) {
  if (view.pending === "take") return ["koeTake", "[data-action^='take ']"];
  if (view.pending) return ["koeDiscard", ".hand-groups [data-action]"];
  if (view.phase === "building") {
    return root.querySelector(".plays [data-action]") ? ["koeBuild", ".plays [data-action]"]
      : ["koePass", "[data-action='pass']"];
  }
  return root.querySelector(".opt.combo") ? ["koeVisit", ".opt.combo"] : ["koeStop", "[data-action='stop']"];
}

export class Guide {
  constructor(page) {
    this.page = page;
    this.closed = false;
    this.box = null;
  }

  /** Called after every rendered view: the guide's words and its pointer. */
  update(view) {
    this.view = view;
    const controls = this.page.app.querySelector("#controls");
    if (controls && !this.watching) {
      // The controls also redraw without a new view (a card picked to discard): point again.
      this.watching = new MutationObserver(() => this.point());
      this.watching.observe(controls, { childList: true });
    }
    this.point();
  }

  point() {
    const view = this.view;
    const app = this.page.app;
    for (const el of app.querySelectorAll(".guide-target")) el.classList.remove("guide-target");
    if (this.closed || !view) return;
    if (!this.box || !this.box.isConnected) {
      const side = app.querySelector(".side-main");
      if (!side) return;
      this.box = document.createElement("section");
      this.box.className = "guide";
      this.box.setAttribute("aria-labelledby", "guide-title");
      this.box.innerHTML = `<h2 id="guide-title"></h2><p id="guide-text" aria-live="polite"></p>
        <button type="button" class="link" id="guide-close"></button>`;
      this.box.querySelector("#guide-close").addEventListener("click", () => this.close());
      side.prepend(this.box);
    }
    const [step, selector] = stepOf(view, app);
    this.box.dataset.step = step;
    this.box.querySelector("#guide-title").textContent = t("guide.title");
    const text = this.box.querySelector("#guide-text");
    const words = t(`guide.${step}`);
    if (text.textContent !== words) text.textContent = words;
    this.box.querySelector("#guide-close").textContent = t(step === "done" || step === "koeDone" ? "guide.finish" : "guide.close");
    const target = selector ? app.querySelector(selector) : null;
    if (target) target.classList.add("guide-target");
  }

  close() {
    this.closed = true;
    if (this.watching) this.watching.disconnect();
    if (this.box) this.box.remove();
    for (const el of this.page.app.querySelectorAll(".guide-target")) el.classList.remove("guide-target");
  }
}
