// The "best route" hint: a small search over the roads that carry counters (plus rivers
// and lakes by raft), paying with the viewer's hand, that visits the most towns not yet
// collected and, among those, keeps the most cards. It only advises: the server decides.
const COST = { // cards of a kind per step on plains, forest, desert, mountain (null: never)
  "giant-pig": [1, 1, null, null],
  "elfcycle": [1, 1, null, 2],
  "magic-cloud": [2, 2, null, 1],
  "unicorn": [null, 1, 2, 1],
  "troll-wagon": [1, 2, 2, 2],
  "dragon": [1, 2, 1, 1],
};
const LAND = ["plains", "forest", "desert", "mountain"];

function stepCost(view, route, from, counters) {
  const to = route.a === from ? route.b : route.a;
  if (route.terrain === "river") return { card: "raft", n: route.downstream === to ? 1 : 2, to };
  if (route.terrain === "lake") {
    const opts = view.options || {};
    const n = route.lake === "mare-nebulae" ? opts.mare_nebulae_rafts ?? 2 : opts.mare_magnum_rafts ?? 2;
    return { card: "raft", n, to };
  }
  const c = counters.get(route.id);
  if (!c) return null;
  const n = COST[c.counter]?.[LAND.indexOf(route.terrain)];
  if (n === null || n === undefined) return null;
  return { card: c.counter, n: n + (c.obstacle !== undefined && c.obstacle !== null ? 1 : 0), to };
}

export function planRoute(view, index) {
  const me = view.players[view.viewer];
  if (!me) return [];
  const counters = new Map((view.roads || []).map((r) => [r.route, r]));
  const hand = new Map();
  for (const k of me.hand || []) hand.set(k, (hand.get(k) || 0) + 1);
  const visited = new Set(me.towns || []);
  const adj = new Map();
  for (const r of index.map.routes) {
    for (const x of [r.a, r.b]) {
      if (!adj.has(x)) adj.set(x, []);
      adj.get(x).push(r);
    }
  }
  let best = { gain: 0, left: -1, path: [] };
  let budget = 20000;
  const path = [];
  const seen = new Set();
  const dfs = (town, gain, left) => {
    if (budget-- <= 0) return;
    if (gain > best.gain || (gain === best.gain && gain > 0 && left > best.left)) {
      best = { gain, left, path: path.slice() };
    }
    for (const r of adj.get(town) || []) {
      const c = stepCost(view, r, town, counters);
      if (!c || (hand.get(c.card) || 0) < c.n) continue;
      hand.set(c.card, hand.get(c.card) - c.n);
      const fresh = !visited.has(c.to) && !seen.has(c.to) && c.to !== index.capital;
      if (fresh) seen.add(c.to);
      path.push({ route: r.id, to: c.to });
      dfs(c.to, gain + (fresh ? 1 : 0), left - c.n);
      path.pop();
      if (fresh) seen.delete(c.to);
      hand.set(c.card, hand.get(c.card) + c.n);
    }
  };
  dfs(me.boot, 0, (me.hand || []).length);
  return best.path;
}
