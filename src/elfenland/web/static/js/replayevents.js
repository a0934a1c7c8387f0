// The replay's list of what happened besides actions: the actions players took back
// (kept in the store as undo events) and the timeouts, each with a link to its step.
import { t } from "./i18n.js";

export async function addReplayEvents(side, gameId, goto, names) {
  let events = [];
  try {
    const res = await fetch(`/api/games/${gameId}/events`);
    if (res.ok) events = (await res.json()).events || [];
  } catch { return; }
  const shown = events.filter((e) => e.kind === "undo" || e.kind === "timeout");
  if (!shown.length) return;
  const box = document.createElement("details");
  box.className = "logbox replay-events";
  box.open = true;
  const title = document.createElement("summary");
  title.textContent = t("replay.events");
  const ol = document.createElement("ol");
  ol.className = "log";
  for (const e of shown) {
    // An undo at seq s leaves the game at step s - 1; a timeout happens at step s.
    const step = e.kind === "undo" ? e.seq - 1 : e.seq;
    const who = names()[e.seat] || "";
    const li = document.createElement("li");
    li.className = e.kind;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "link";
    b.dataset.step = String(step);
    b.textContent = t("replay.atStep", { n: step });
    b.addEventListener("click", () => goto(step));
    const text = e.kind === "undo" ? t("event.undo", { name: who })
      : t(e.for_good ? "event.takeover" : "event.timeout", { name: who, n: e.timeouts });
    li.append(b, " ", text);
    ol.appendChild(li);
  }
  box.append(title, ol);
  side.appendChild(box);
}
