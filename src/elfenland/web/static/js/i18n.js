// Every text of the UI goes through t(): the tables live in /i18n/<lang>.json so that the
// tests (and translators) read the same files the page uses.
export const LANGS = ["en", "fr", "de"];
const tables = {};
let lang = "en";
const listeners = [];

function pickLanguage() {
  const saved = localStorage.getItem("elfenland.lang");
  if (saved && LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const short = String(l).slice(0, 2).toLowerCase();
    if (LANGS.includes(short)) return short;
  }
  return "en";
}

const loading = {};

function load(l) {
  if (!loading[l]) {
    loading[l] = fetch(`/i18n/${l}.json`).then((res) => res.json()).then((table) => {
      tables[l] = table;
      return table;
    });
  }
  return loading[l];
}

export async function initI18n() {
  lang = pickLanguage();
  await Promise.all([load("en"), load(lang)]);
  document.documentElement.lang = lang;
}

export function currentLang() { return lang; }

export async function setLang(l) {
  if (!LANGS.includes(l)) return;
  await load(l);
  lang = l;
  localStorage.setItem("elfenland.lang", l);
  document.documentElement.lang = l;
  applyI18n(document);
  for (const fn of listeners) fn(l);
}

export function onLangChange(fn) { listeners.push(fn); }

/** French elides "de" before a vowel: "le royaume d’Ann", "une partie d’Elfenland",
 * "d’Ixara". The tables write "de {name}"; the filled-in value decides. */
const ELIDES = /^[aeiouyàâäæéèêëîïôöœùûü]/i;

/** The text for key in the current language, falling back to English, with {name}
 * placeholders filled from params. */
/** The label of what the page's seat holds: "Your cards", or, when the page shows another
 * seat's hand (a replay viewed as that seat: ``owner`` is its name), "Cards of Bea". */
export function holderLabel(yours, theirs, owner, params = {}) {
  return owner ? t(theirs, { ...params, name: owner }) : t(yours, params);
}

export function t(key, params = {}) {
  let s = tables[lang]?.[key];
  if (s === undefined) s = tables.en?.[key];
  else if (lang === "fr") {
    s = s.replace(/\b([Dd])e \{(\w+)\}/g,
      (m, d, k) => (ELIDES.test(String(params[k] ?? "")) ? `${d}’{${k}}` : m));
  }
  if (s === undefined) {
    console.warn("missing text", key);
    s = key;
  }
  return s.replace(/\{(\w+)\}/g, (m, k) => (params[k] !== undefined ? String(params[k]) : m));
}

/** A text that depends on a count: `${key}.${category}` by the language's plural rules
 * (Intl.PluralRules: "one", "other", ...), falling back to `${key}.other`; {n} is filled. */
export function tn(key, n, params = {}) {
  const cat = new Intl.PluralRules(lang).select(n);
  const k = has(`${key}.${cat}`) || tables[lang]?.[`${key}.${cat}`] ? `${key}.${cat}` : `${key}.other`;
  return t(k, { n, ...params });
}

export function has(key) { return tables.en?.[key] !== undefined; }

/** Fill every element marked with data-i18n (text), data-i18n-title,
 * data-i18n-aria-label and data-i18n-placeholder under root. */
export function applyI18n(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) {
    el.title = t(el.dataset.i18nTitle);
    el.setAttribute("aria-label", el.title);
  }
  for (const el of root.querySelectorAll("[data-i18n-aria-label]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nAriaLabel));
  }
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
}
