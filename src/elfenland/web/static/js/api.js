// The lobby's HTTP calls (docs/protocol.md). Every failure becomes an ApiError carrying
// the server's error code and message, so the page can show it plainly.
export class ApiError extends Error {
  constructor(code, message, status = 0) {
    super(message || code);
    this.code = code;
    this.status = status;
  }
}

// A token goes in a header, never in the URL (proxies and access logs keep URLs).
async function call(method, path, body, token) {
  let res;
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError("network", String(err && err.message ? err.message : err));
  }
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const e = data && (data.type === "error" ? data : data.detail || data);
    const code = (e && e.code) || `http-${res.status}`;
    const message = (e && (e.message || (typeof e === "string" ? e : ""))) || res.statusText;
    throw new ApiError(code, message, res.status);
  }
  return data;
}

export const api = {
  map: (game = "elfenland") => call("GET", `/api/maps/${game}`),
  options: (game) => call("GET", `/api/options/${game}`),
  games: (status) => call("GET", `/api/games${status ? `?status=${status}` : ""}`),
  game: (id) => call("GET", `/api/games/${id}`),
  create: (body) => call("POST", "/api/games", body),
  join: (id, body) => call("POST", `/api/games/${id}/join`, body),
  start: (id, body) => call("POST", `/api/games/${id}/start`, body),
  toBot: (id, seat, body) => call("POST", `/api/games/${id}/seats/${seat}/bot`, body),
  takeBack: (id, seat, body) => call("POST", `/api/games/${id}/seats/${seat}/take`, body),
  hint: (id, token, seat) => call("GET", `/api/games/${id}/hint${seat === null || seat === undefined ? "" : `?seat=${seat}`}`, undefined, token),
  replay: (id, step, seat, token) => {
    const q = new URLSearchParams();
    if (step !== undefined && step !== null) q.set("step", step);
    if (seat !== undefined && seat !== null) q.set("seat", seat);
    return call("GET", `/api/games/${id}/replay?${q}`, undefined, token);
  },
};

// Seat tokens: the only proof of a seat, kept so that a reload resumes the game.
const KEY = "elfenland.seats";

function allSeats() {
  try { return JSON.parse(localStorage.getItem(KEY) || "{}"); } catch { return {}; }
}

export function savedSeat(gameId) { return allSeats()[gameId] || null; }

export function saveSeat(gameId, seat, token, name) {
  const all = allSeats();
  all[gameId] = { seat, token, name };
  localStorage.setItem(KEY, JSON.stringify(all));
}

export function forgetSeat(gameId) {
  const all = allSeats();
  delete all[gameId];
  localStorage.setItem(KEY, JSON.stringify(all));
}

export function savedName() { return localStorage.getItem("elfenland.name") || ""; }
export function saveName(name) { localStorage.setItem("elfenland.name", name); }
