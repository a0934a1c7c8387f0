// One player on several devices. The player panel offers a link, `#/player/<token>`,
// with the player's token in the fragment (never sent to the server, so no log keeps
// it); opening it on another device checks the token with the server, makes that
// browser the player (asking first if it is another player already) and goes to the
// lobby, whose "Your games" then lists the player's games. A linked seat opens with the
// player's token (docs/protocol.md), so each device sits at the player's own seats.
import { applyI18n, t } from "./i18n.js";
import { showError, toast } from "./notify.js";
import { adoptPlayer, deviceLink, savedPlayer } from "./players.js";

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The panel's part: the link for another device, once this browser is a player. */
export function drawDeviceBox(root) {
  const box = root.querySelector("#device-box");
  if (!box) return;
  const p = savedPlayer();
  box.hidden = !p;
  if (!p) { box.innerHTML = ""; return; }
  box.innerHTML = `<details class="device-fold" id="device-fold"><summary data-i18n="device.title"></summary>
    <p class="muted small" data-i18n="device.help"></p>
    <label class="share"><span data-i18n="device.link"></span>
      <span class="share-row"><input id="device-link" readonly value="${esc(deviceLink(p.token))}">
      <button type="button" class="secondary" id="device-copy" data-i18n="device.copy"></button></span></label>
    </details>`;
  applyI18n(box);
  box.querySelector("#device-copy").addEventListener("click", async () => {
    const input = box.querySelector("#device-link");
    input.select();
    try { await navigator.clipboard.writeText(input.value); } catch { document.execCommand("copy"); }
    toast(t("device.copied"), "info");
  });
}

/** `#/player/<token>`: become the player the link names on this device. */
export class DevicePage {
  constructor(app, token) {
    this.app = app;
    this.token = token;
    this.destroyed = false;
  }

  async start() {
    // The token leaves the address bar and the history at once (a shared screen, a
    // synced history): the page goes on from what it holds.
    history.replaceState(null, "", `${location.pathname}${location.search}#/player`);
    this.app.innerHTML = `<section class="card narrow" id="device-page">
      <h1 data-i18n="device.title"></h1><p class="muted" data-i18n="device.checking"></p></section>`;
    applyI18n(this.app);
    const before = savedPlayer();
    if (before && before.token === this.token) { this.done(before.name); return; }
    let me;
    try {
      // Checked, not yet kept: this browser's player changes only once it is a player.
      const res = await fetch("/api/players/me", { headers: { Authorization: `Bearer ${this.token}` } });
      if (!res.ok) throw Object.assign(new Error(t("device.unknown")), { code: "bad-token" });
      me = await res.json();
    } catch (err) {
      if (this.destroyed) return;
      this.fail(err);
      return;
    }
    if (this.destroyed) return;
    if (!before) { await this.adopt(); return; }
    this.ask(before, me);
  }

  ask(before, me) {
    this.app.innerHTML = `<section class="card narrow" id="device-page">
      <h1 data-i18n="device.title"></h1>
      <p id="device-question">${esc(t("device.replace", { old: before.name, name: me.name }))}</p>
      <div class="row"><button type="button" class="primary" id="device-replace" data-i18n="device.replaceBtn"></button>
      <a class="button secondary" href="#/" id="device-keep" data-i18n="device.keep"></a></div></section>`;
    applyI18n(this.app);
    this.app.querySelector("#device-replace").addEventListener("click", () => this.adopt());
  }

  async adopt() {
    try {
      const me = await adoptPlayer(this.token);
      this.done(me.name);
    } catch (err) {
      if (!this.destroyed) this.fail(err);
    }
  }

  done(name) {
    if (this.destroyed) return;
    toast(t("device.done", { name }), "info");
    location.hash = "#/";
  }

  fail(err) {
    showError(err);
    this.app.innerHTML = `<section class="card narrow" id="device-page"><h1 data-i18n="device.title"></h1>
      <p id="device-error" data-i18n="device.unknown"></p>
      <a class="button primary" href="#/" data-i18n="nav.lobby"></a></section>`;
    applyI18n(this.app);
  }

  destroy() { this.destroyed = true; }
}
