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

export const playerApi = {
  games: (token) => call("GET", "/api/players/me/games", undefined, token),
  ratings: (game) => call("GET", `/api/ratings?${new URLSearchParams({ game })}`),
};

export { api };
