// Messages to the player: short toasts, and server errors in plain words.
import { currentLang, has, t } from "./i18n.js";

export function toast(text, kind = "error", detail = "") {
  const box = document.getElementById("toasts");
  const d = document.createElement("div");
  d.className = `toast ${kind}`;
  d.setAttribute("role", kind === "error" ? "alert" : "status");
  const strong = document.createElement("strong");
  strong.textContent = text;
  d.appendChild(strong);
  if (detail) {
    const small = document.createElement("div");
    small.className = "detail";
    small.textContent = detail;
    d.appendChild(small);
  }
  d.addEventListener("click", () => d.remove());
  box.appendChild(d);
  setTimeout(() => d.remove(), kind === "error" ? 7000 : 3500);
}

/** An error from the server in plain words: the code's text in the page's language.
 * The server's own message (English) is shown under it only on an English page, or when
 * the code has no text of its own: a translated title never sits over English. */
/** An error in the reader's language: the text of its code (the server's own words,
 * which are English, only for a code the tables do not know). */
export function errorText(err) {
  const code = err && err.code ? err.code : "network";
  const key = `error.${code}`;
  return has(key) ? t(key) : (err && err.message) || t("error.unknown");
}

export function showError(err) {
  const code = err && err.code ? err.code : "network";
  const key = `error.${code}`;
  const known = has(key);
  const text = known ? t(key) : t("error.unknown");
  const message = err && err.message && err.message !== code ? err.message : "";
  toast(text, "error", message && (!known || currentLang() === "en") ? message : "");
}
