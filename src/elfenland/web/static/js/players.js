// This browser's player: a name kept across games (a device token, no password), an
// optional webhook, and the token passed when creating or joining a game.
import { api } from "./api.js";

const KEY = "elfenland.player";

export function savedPlayer() {
  try { return JSON.parse(localStorage.getItem(KEY) || "null"); } catch { return null; }
}

export function playerToken() {
  const p = savedPlayer();
  return p ? p.token : null;
}

// A token goes in a header, never in the URL (proxies and access logs keep URLs).
async function call(method, path, body, token) {
  const headers = body ? { "Content-Type": "application/json" } : {};
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, {
    method, headers,
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const err = new Error((data && data.message) || res.statusText);
    err.code = (data && data.code) || `http-${res.status}`;
    throw err;
  }
  return data;
}

/** Become a player (or rename / set the webhook of the one this browser is). */
export async function savePlayer(name, webhook) {
  const p = savedPlayer();
  if (p) {
    const me = await call("POST", "/api/players/me", { token: p.token, name, webhook: webhook || "" });
    localStorage.setItem(KEY, JSON.stringify({ ...me, token: p.token }));
    return me;
  }
  const res = await call("POST", "/api/players", { name, webhook: webhook || null });
  localStorage.setItem(KEY, JSON.stringify({ ...res.player, token: res.token }));
  return res.player;
}

/** The link that makes another device this player: the token rides in the URL's
 * fragment, which browsers never send to the server (so no server or proxy log keeps
 * it). Whoever opens it is the player, like whoever holds this browser. */
export function deviceLink(token) {
  return `${location.origin}${location.pathname}#/player/${encodeURIComponent(token)}`;
}

/** Check a player token with the server and make this browser that player. */
export async function adoptPlayer(token) {
  const me = await call("GET", "/api/players/me", undefined, token);
  localStorage.setItem(KEY, JSON.stringify({ ...me, token }));
  return me;
}

/** The player's seat at a game, from the server (null: none, or no player here). A
 * linked seat opens with the player's token (docs/protocol.md), so another device of the
 * player sits there too. With two seats at one table, the one to act is chosen. */
export async function playerSeat(gameId) {
  const p = savedPlayer();
  if (!p) return null;
  let games;
  try { ({ games } = await call("GET", "/api/players/me/games", undefined, p.token)); } catch { return null; }
  const here = games.filter((g) => g.id === gameId);
  if (!here.length) return null;
  const g = here.find((x) => x.waiting) || here[0];
  return { seat: g.seat, token: p.token, name: p.name, player: true };
}

export const playerApi = {
  games: (token) => call("GET", "/api/players/me/games", undefined, token),
  ratings: (game) => call("GET", `/api/ratings?${new URLSearchParams({ game })}`),
};

export { api };
