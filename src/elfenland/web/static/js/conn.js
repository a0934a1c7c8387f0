// One live game socket that reconnects by itself: after a drop it waits (0.5 s, 1 s, 2 s
// … up to 5 s), reconnects with `since` = the last log entry it holds, and the server's
// `update` brings the view and the missing log back. The seat's token travels as a
// WebSocket subprotocol (`token.<token>` beside `elfenland`), never in the URL, which
// proxies and access logs keep. A player's token opens the seats linked to the player:
// `seat` then names the seat (not a secret, so in the URL).
export class GameConnection {
  constructor(gameId, token, handlers) {
    this.gameId = gameId;
    this.token = token;
    /** The seat asked for (a player's token may open two seats of one table); null: the
     * token's own. */
    this.seat = null;
    this.h = handlers; // {hello, update, lobby, error, status}
    this.since = 0;
    this.seq = null;
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.refs = 0;
    this.timer = null;
    this.pingTimer = null;
    /** The numbers of the undo events known, null before the first `events`. */
    this.undos = null;
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = new URLSearchParams();
    if (this.since) q.set("since", String(this.since));
    if (this.token && this.seat !== null && this.seat !== undefined) q.set("seat", String(this.seat));
    const qs = q.toString();
    return `${proto}//${location.host}/ws/games/${this.gameId}${qs ? `?${qs}` : ""}`;
  }

  open() {
    if (this.closed) return;
    this.h.status("connecting");
    let ws;
    const protocols = this.token ? ["elfenland", `token.${this.token}`] : ["elfenland"];
    try { ws = new WebSocket(this.url(), protocols); } catch { this.schedule(); return; }
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      this.h.status("online");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.sendRaw({ type: "ping" }), 20000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      this.dispatch(msg);
    };
    ws.onclose = () => {
      clearInterval(this.pingTimer);
      if (this.ws === ws) this.ws = null;
      if (!this.closed) this.schedule();
    };
    ws.onerror = () => { /* onclose follows and retries */ };
  }

  schedule() {
    this.h.status("offline");
    const delay = Math.min(5000, 500 * 2 ** this.retry);
    this.retry += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), delay);
  }

  dispatch(msg) {
    switch (msg.type) {
      case "hello": this.h.hello(msg); break;
      case "update":
        this.seq = msg.seq;
        if (this.since > msg.seq) this.since = msg.seq; // actions were taken back
        for (const e of msg.log || []) if (e.seq > this.since) this.since = e.seq;
        this.h.update(msg);
        break;
      case "lobby": this.h.lobby(msg); break;
      case "event":
        if (msg.event && msg.event.kind === "undo" && this.undos) this.undos.add(msg.event.n);
        if (this.h.event) this.h.event(msg.event);
        break;
      case "events": this.onEvents(msg.events || []); break;
      case "error":
        if (msg.code === "stale") this.sync();
        this.h.error(msg);
        break;
      default: break;
    }
  }

  /** The events sent on (re)connect. An action taken back while this socket was away may
   * have been replaced by another with the same seq, which `since` skipped: the log is
   * asked for again from the first action taken back (the page drops its entries). */
  onEvents(list) {
    const undos = list.filter((e) => e.kind === "undo");
    const fresh = this.undos ? undos.filter((e) => !this.undos.has(e.n)) : [];
    this.undos = new Set(undos.map((e) => e.n));
    if (this.h.events) this.h.events(list);
    if (!fresh.length) return;
    const from = Math.min(...fresh.map((e) => e.seq));
    if (from > this.since) return;
    this.since = from - 1;
    if (this.h.rewind) this.h.rewind(this.since);
    this.sync();
  }

  sendRaw(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

  /** Send an action; false when offline (the caller says so, the socket reconnects). */
  act(text) {
    this.refs += 1;
    return this.sendRaw({ type: "action", action: text, seq: this.seq, ref: `a${this.refs}` });
  }

  sync() { this.sendRaw({ type: "sync", since: this.since }); }

  /** Take back this seat's last action (the server checks that it may). */
  undo() { return this.sendRaw({ type: "undo", seq: this.seq }); }

  /** A chat message (a spectator also gives a name); false when offline. */
  chat(text, name) { return this.sendRaw({ type: "chat", text, name: name || null }); }

  /** Drop the socket on purpose (tests use it to check the reconnection). */
  drop() { if (this.ws) this.ws.close(); }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close();
  }
}
