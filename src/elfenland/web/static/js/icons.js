// The pictures of the game, drawn here in SVG for this project: one symbol per kind of
// transport (on a 32×32 grid), the boot, the obstacle and Elvenhold's castle.
export const TRANSPORTS = ["giant-pig", "elfcycle", "magic-cloud", "unicorn", "troll-wagon",
  "dragon", "raft"];
export const COUNTER_KINDS = TRANSPORTS.slice(0, 6);

/** Card/counter background colour of each transport. */
export const TRANSPORT_COLOURS = {
  "giant-pig": "#f2b5c4",
  "elfcycle": "#f4a259",
  "magic-cloud": "#a9cdef",
  "unicorn": "#d7c3f0",
  "troll-wagon": "#b08a6a",
  "dragon": "#e76f51",
  "raft": "#8fc1b5",
};

export const PLAYER_COLOURS = ["#d62828", "#1d4ed8", "#e9b200", "#15803d", "#7c3aed", "#262626"];
/** The class that gives an element its seat's colour as `--pc` (and a swatch its
 * background): one colour per seat everywhere, from PLAYER_COLOURS alone. The rules are
 * added through the CSS object model, not inline styles, so a strict CSP allows them. */
export function seatClass(seat) { return `pc${((Number(seat) || 0) % 6 + 6) % 6}`; }

if (typeof CSSStyleSheet !== "undefined" && "adoptedStyleSheets" in document) {
  const sheet = new CSSStyleSheet();
  PLAYER_COLOURS.forEach((c, i) => {
    sheet.insertRule(`.pc${i} { --pc: ${c}; }`);
    sheet.insertRule(`.swatch.pc${i} { background: ${c}; }`);
  });
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

/** Players are told apart by more than colour: each seat has its shape (town markers, the
 * panels) and its number (boots, obstacles, banners). */
export const PLAYER_SHAPES = ["circle", "square", "triangle", "diamond", "hexagon", "star"];

/** The seat's shape as an SVG path of radius r around 0,0. */
export function shapePath(seat, r) {
  const poly = (n, rot, radius = (i) => r) => Array.from({ length: n }, (_, i) => {
    const a = rot + (i * 2 * Math.PI) / n;
    const q = radius(i);
    return `${i ? "L" : "M"}${(Math.cos(a) * q).toFixed(2)},${(Math.sin(a) * q).toFixed(2)}`;
  }).join(" ") + " Z";
  switch (PLAYER_SHAPES[seat % PLAYER_SHAPES.length]) {
    case "square": return poly(4, Math.PI / 4, () => r * 1.2);
    case "triangle": return poly(3, -Math.PI / 2, () => r * 1.35);
    case "diamond": return poly(4, 0, () => r * 1.3);
    case "hexagon": return poly(6, 0, () => r * 1.1);
    case "star": return poly(10, -Math.PI / 2, (i) => (i % 2 ? r * 0.6 : r * 1.45));
    default: return `M${r},0 A${r},${r} 0 1 1 ${-r},0 A${r},${r} 0 1 1 ${r},0 Z`;
  }
}

/** A seat's shape in its colour, as a small inline SVG. */
export function seatShapeIcon(seat, size = 12) {
  return `<svg class="seat-shape" data-shape="${PLAYER_SHAPES[seat % PLAYER_SHAPES.length]}" viewBox="-8 -8 16 16" width="${size}" height="${size}" aria-hidden="true">
    <path d="${shapePath(seat, 5.5)}" fill="${PLAYER_COLOURS[seat % PLAYER_COLOURS.length]}" stroke="#111" stroke-width="1.2"/></svg>`;
}

/** The seat a player colour belongs to (-1 for another colour). */
const seatOf = (colour) => PLAYER_COLOURS.indexOf(colour);
const numberOn = (colour, x, y, size) => {
  const seat = seatOf(colour);
  return seat < 0 ? "" : `<text x="${x}" y="${y}" class="seat-num" font-size="${size}" text-anchor="middle"
    fill="#fff" stroke="#111" stroke-width="${(size / 5).toFixed(1)}" paint-order="stroke" font-weight="800">${seat + 1}</text>`;
};
export { numberOn };

const INK = "#2b2118";

const SYMBOLS = {
  "giant-pig": `
    <ellipse cx="15" cy="17" rx="10" ry="7" fill="#e58aa3" stroke="${INK}" stroke-width="1.3"/>
    <circle cx="24" cy="14" r="5" fill="#e58aa3" stroke="${INK}" stroke-width="1.3"/>
    <ellipse cx="28" cy="15" rx="2" ry="2.4" fill="#f7c1cf" stroke="${INK}" stroke-width="1"/>
    <path d="M21 9.5 L23 6 L25 9.8 Z" fill="#e58aa3" stroke="${INK}" stroke-width="1"/>
    <circle cx="24.5" cy="12.5" r="0.9" fill="${INK}"/>
    <path d="M9 23 v4 M13 24 v3.5 M18 24 v3.5 M22 23 v4" stroke="${INK}" stroke-width="2"
          stroke-linecap="round"/>
    <path d="M5 15 q-3 -1 -2 -4" fill="none" stroke="${INK}" stroke-width="1.2"/>`,
  "elfcycle": `
    <circle cx="8" cy="21" r="6" fill="none" stroke="${INK}" stroke-width="2"/>
    <circle cx="24" cy="21" r="6" fill="none" stroke="${INK}" stroke-width="2"/>
    <path d="M8 21 L14 11 L22 11 L24 21 M14 11 L17 21 L22 11 M12 8 h5" fill="none"
          stroke="#7a2e0e" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"/>
    <path d="M21 8 q2 -2 4 0" fill="none" stroke="${INK}" stroke-width="1.6"/>`,
  "magic-cloud": `
    <path d="M7 23 a5 5 0 0 1 1 -9.8 a7 7 0 0 1 13 -2.5 a5.5 5.5 0 0 1 4.5 9.5 a4 4 0 0 1 -3 2.8 Z"
          fill="#ffffff" stroke="#2f5d8a" stroke-width="1.6" stroke-linejoin="round"/>
    <path d="M11 27 l1.5 -2 l1.5 2 l-1.5 2 Z M19 27.5 l1 -1.5 l1 1.5 l-1 1.5 Z"
          fill="#ffd166" stroke="#2f5d8a" stroke-width="0.8"/>
    <path d="M12 17 q4 3 8 0" fill="none" stroke="#2f5d8a" stroke-width="1.2"/>`,
  "unicorn": `
    <path d="M9 28 L11 18 Q10 12 15 9 L20 8 L25 13 Q26 15 24 16 L19 15 L18 19 L20 28 Z"
          fill="#ffffff" stroke="${INK}" stroke-width="1.3" stroke-linejoin="round"/>
    <path d="M19 8.5 L24 2 L21.5 9.5 Z" fill="#f4d35e" stroke="${INK}" stroke-width="1"/>
    <path d="M15 9 Q11 12 12 18 Q9 14 10 10 Q12 8 15 9 Z" fill="#b392d8" stroke="${INK}"
          stroke-width="0.9"/>
    <circle cx="20.5" cy="11.5" r="1" fill="${INK}"/>`,
  "troll-wagon": `
    <path d="M4 10 H26 L24 21 H6 Z" fill="#8a5a2b" stroke="${INK}" stroke-width="1.4"
          stroke-linejoin="round"/>
    <path d="M7 13 H23 M8 17 H22" stroke="#5a3715" stroke-width="1.2"/>
    <circle cx="9" cy="23" r="4" fill="#d9c3a5" stroke="${INK}" stroke-width="1.4"/>
    <circle cx="21" cy="23" r="4" fill="#d9c3a5" stroke="${INK}" stroke-width="1.4"/>
    <circle cx="9" cy="23" r="1" fill="${INK}"/><circle cx="21" cy="23" r="1" fill="${INK}"/>
    <path d="M26 12 L30 9" stroke="${INK}" stroke-width="1.6" stroke-linecap="round"/>`,
  "dragon": `
    <path d="M4 22 Q10 14 16 17 Q21 19 24 13 L28 11 L27 15 L24 16 Q22 23 15 23 Q9 23 4 22 Z"
          fill="#3a7d44" stroke="${INK}" stroke-width="1.3" stroke-linejoin="round"/>
    <path d="M12 18 L9 6 L17 12 L20 5 L20 17 Z" fill="#8fd694" stroke="${INK}"
          stroke-width="1.2" stroke-linejoin="round"/>
    <circle cx="25.5" cy="12.6" r="0.9" fill="${INK}"/>
    <path d="M28.5 13 q2 0 2.5 2 q-1.5 -0.5 -2.5 0.5" fill="#ffb703" stroke="#c1121f"
          stroke-width="0.8"/>
    <path d="M4 22 Q2 26 6 27" fill="none" stroke="${INK}" stroke-width="1.3"/>`,
  "raft": `
    <path d="M4 20 H28 M4 24 H28" stroke="${INK}" stroke-width="0.01"/>
    <rect x="4" y="18" width="24" height="3.6" rx="1.8" fill="#b07b45" stroke="${INK}"
          stroke-width="1.1"/>
    <rect x="4" y="22" width="24" height="3.6" rx="1.8" fill="#c48a50" stroke="${INK}"
          stroke-width="1.1"/>
    <path d="M15 18 V5" stroke="${INK}" stroke-width="1.5"/>
    <path d="M15.8 6 L25 15 H15.8 Z" fill="#fff6e0" stroke="${INK}" stroke-width="1.1"
          stroke-linejoin="round"/>
    <path d="M2 28 q3 -2 6 0 t6 0 t6 0 t6 0 t6 0" fill="none" stroke="#2f7fb8"
          stroke-width="1.2"/>`,
};

export function symbolInner(kind) { return SYMBOLS[kind] || ""; }

/** A counter or card as a standalone inline SVG (for panels and buttons). */
export function transportIcon(kind, size = 28, extraClass = "") {
  const bg = TRANSPORT_COLOURS[kind] || "#ccc";
  return `<svg class="ticon ${extraClass}" viewBox="0 0 32 32" width="${size}" height="${size}"
    aria-hidden="true"><rect x="0.75" y="0.75" width="30.5" height="30.5" rx="6" fill="${bg}"
    stroke="#3b2f22" stroke-width="1.5"/>${SYMBOLS[kind] || ""}</svg>`;
}

/** A face-down counter (secret or the pile). */
export function hiddenIcon(size = 28) {
  return `<svg class="ticon" viewBox="0 0 32 32" width="${size}" height="${size}"
    aria-hidden="true"><rect x="0.75" y="0.75" width="30.5" height="30.5" rx="6" fill="#3d5a80"
    stroke="#1d2d44" stroke-width="1.5"/><path d="M16 6 L19 13 L26 13 L20.5 17.5 L22.5 25
    L16 20.5 L9.5 25 L11.5 17.5 L6 13 L13 13 Z" fill="#98c1d9" opacity="0.8"/></svg>`;
}

export const BOOT_PATH = "M-5 -12 H3 V1 L10 4 Q12 5 12 8 V10 H-6 Q-7 10 -7 8 V-10 Q-7 -12 -5 -12 Z";

export function bootIcon(colour, size = 20) {
  return `<svg viewBox="-9 -14 23 26" width="${size}" height="${size}" aria-hidden="true">
    <path d="${BOOT_PATH}" fill="${colour}" stroke="#111" stroke-width="1.6"/>${numberOn(colour, -1, 4, 13)}</svg>`;
}

/** The obstacle (a fallen tree trunk), with its owner's colour as a ring. */
export function obstacleInner(colour) {
  return `<circle r="11" fill="#fff" stroke="${colour}" stroke-width="3"/>
    <rect x="-8" y="-3.2" width="16" height="6.4" rx="3" fill="#8b5a2b" stroke="#3a240f"
      stroke-width="1"/>
    <ellipse cx="8" cy="0" rx="1.8" ry="3.2" fill="#d9b382" stroke="#3a240f" stroke-width="0.8"/>
    <path d="M-3 -3 l-2 -4 M1 -3 l1 -4" stroke="#3f7d3a" stroke-width="1.6"
      stroke-linecap="round"/>${numberOn(colour, 0, 9.5, 9)}`;
}

export function obstacleIcon(colour, size = 24) {
  return `<svg viewBox="-12 -12 24 24" width="${size}" height="${size}" aria-hidden="true">
    ${obstacleInner(colour)}</svg>`;
}

export function castleInner() {
  return `<path d="M-14 8 V-6 h4 v3 h4 v-3 h4 v3 h4 v-3 h4 v3 h4 v-3 h4 V8 Z" fill="#f2d17c"
      stroke="#6b4a10" stroke-width="1.5" stroke-linejoin="round"/>
    <path d="M-4 8 v-6 a4 4 0 0 1 8 0 v6 Z" fill="#6b4a10"/>
    <path d="M0 -6 V-16 L7 -13 L0 -10" fill="#c1121f" stroke="#6b4a10" stroke-width="1"/>`;
}
