// The table's talk and events: chat messages from players and spectators, and what the
// clock did (a timeout, a bot taking a seat over). Every text goes in as text
// (textContent), never as markup, so a message can hold anything.
import { t } from "./i18n.js";

const MAX_LEN = 500;

export class ChatBox {
  constructor(el, { send, names, spectator }) {
    this.el = el;
    this.send = send; // (text, name) => bool
    this.names = names;
    this.spectator = spectator;
    this.events = [];
    el.innerHTML = `<details class="chatbox" open><summary></summary>
      <ol class="chat-list" aria-live="polite"></ol>
      <form class="chat-form" autocomplete="off">
        <input class="chat-name" maxlength="40" hidden>
        <input class="chat-input" maxlength="${MAX_LEN}">
        <button type="submit" class="secondary chat-send"></button></form></details>`;
    this.list = el.querySelector(".chat-list");
    this.input = el.querySelector(".chat-input");
    this.nameInput = el.querySelector(".chat-name");
    this.nameInput.hidden = !spectator;
    el.querySelector(".chat-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      if (this.send(text, this.nameInput.value.trim())) this.input.value = "";
    });
    this.relabel();
  }

  relabel() {
    this.el.querySelector("summary").textContent = t("chat.title");
    this.input.placeholder = t("chat.placeholder");
    this.nameInput.placeholder = t("chat.yourName");
    this.el.querySelector(".chat-send").textContent = t("chat.send");
    this.render();
  }

  setAll(events) { this.events = events.slice(); this.render(); }

  add(event) {
    if (this.events.some((e) => e.n === event.n)) return;
    this.events.push(event);
    this.render();
  }

  line(e) {
    const names = this.names();
    const who = e.seat !== null && e.seat !== undefined ? names[e.seat] || "" : "";
    if (e.kind === "undo") return t("event.undo", { name: who });
    if (e.kind === "rated") return t("event.rated");
    if (e.kind === "unrated") {
      return t(e.reason === "unrated-table" ? "event.unratedTable" : "event.unratedFew");
    }
    if (e.kind === "timeout") {
      return t(e.for_good ? "event.takeover" : "event.timeout", { name: who, n: e.timeouts });
    }
    return null;
  }

  render() {
    this.list.textContent = "";
    for (const e of this.events.slice(-200)) {
      const li = document.createElement("li");
      li.className = `event ${e.kind}`;
      li.dataset.n = String(e.n);
      if (e.kind === "chat") {
        const who = document.createElement("b");
        who.textContent = e.spectator ? `${e.name} (${t("chat.spectator")})` : e.name;
        const text = document.createElement("span");
        text.className = "chat-text";
        text.textContent = e.text;
        li.append(who, ": ", text);
      } else {
        li.textContent = this.line(e) || e.kind;
      }
      this.list.appendChild(li);
    }
    this.list.scrollTop = this.list.scrollHeight;
  }
}
