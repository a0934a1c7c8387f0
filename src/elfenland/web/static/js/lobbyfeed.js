// The lobby feed (/ws/lobby, docs/protocol.md): lobby changes and "your turn" notices
// from every server process, as they happen. The feed does not replay what happened
// while it was away, so each time it (re)connects the page fetches its lists afresh
// (`live`). After a drop — code 1012 when a process drains, or a process gone — it
// waits 0.5 s, 1 s, 2 s … up to 10 s (a little randomised, so that the lobbies of a
// drained process do not all come back in the same instant) and tries again.
export class LobbyFeed {
  /** handlers: {live(), offline(), lobby(game), turn(msg)} */
  constructor(handlers) {
    this.h = handlers;
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.timer = null;
    /** The last close code (1012: the process restarts or drains; 1006: it vanished). */
    this.lastClose = null;
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws/lobby`;
  }

  open() {
    if (this.closed || !("WebSocket" in window)) return;
    let ws;
    try { ws = new WebSocket(this.url()); } catch { this.schedule(); return; }
    this.ws = ws;
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if (!msg || typeof msg !== "object") return;
      if (msg.type === "hello") {
        this.retry = 0;
        this.server = typeof msg.server === "string" ? msg.server : null;
        this.h.live();
      } else if (msg.type === "lobby" && msg.game && typeof msg.game === "object") {
        this.h.lobby(msg.game);
      } else if (msg.type === "turn" && typeof msg.game === "string") {
        this.h.turn(msg);
      }
    };
    ws.onclose = (ev) => {
      if (this.ws === ws) this.ws = null;
      this.lastClose = ev.code;
      if (this.closed) return;
      this.h.offline();
      this.schedule();
    };
    ws.onerror = () => { /* onclose follows and retries */ };
  }

  schedule() {
    const delay = Math.min(10000, 500 * 2 ** this.retry) * (0.75 + Math.random() / 2);
    this.retry += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), delay);
  }

  /** Drop the socket as a network fault would (tests check the reconnection). */
  drop() { if (this.ws) this.ws.close(); }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
    this.ws = null;
  }
}
