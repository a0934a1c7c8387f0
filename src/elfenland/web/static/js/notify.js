// Messages to the player: short toasts, and server errors in plain words.
import { t } from "./i18n.js";

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

/** An error from the server in plain words: the code's text, then the server's message. */
export function showError(err) {
  const code = err && err.code ? err.code : "network";
  const key = `error.${code}`;
  const text = t(key) === key ? t("error.unknown") : t(key);
  toast(text, "error", err && err.message && err.message !== code ? err.message : "");
}
