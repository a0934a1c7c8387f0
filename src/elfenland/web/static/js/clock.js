// The table's clock: whose turn it is, the time left (counting down between the
// server's updates, corrected by the server's own "now"), the banks and the timeouts.
import { t } from "./i18n.js";
import { formatLeft } from "./tempo.js";

export class ClockView {
  constructor(el, names) {
    this.el = el;
    this.names = names; // () => seat names
    this.clock = null;
    this.offset = 0; // server time - local time, in seconds
    this.timer = setInterval(() => this.render(), 500);
  }

  set(clock) {
    if (!clock) return;
    this.clock = clock;
    this.offset = clock.now - Date.now() / 1000;
    this.render();
  }

  render() {
    const c = this.clock;
    if (!this.el || !c) return;
    this.el.hidden = false;
    const names = this.names();
    const head = t(`tempo.${c.tempo}`);
    let line;
    if (c.seat === null || c.seat === undefined) line = "";
    else if (c.stand_in) line = t("clock.standIn", { name: names[c.seat] || "" });
    else if (c.deadline) {
      const left = c.deadline - (Date.now() / 1000 + this.offset);
      line = t("clock.left", { name: names[c.seat] || "", left: formatLeft(left) });
      this.el.classList.toggle("low", left < Math.min(30, c.per_move / 4));
    }
    const outs = c.timeouts.map((n, i) => (n ? `${names[i] || ""} ${n}/${c.max_timeouts}` : "")).filter(Boolean);
    this.el.innerHTML = "";
    const b = document.createElement("strong");
    b.textContent = head;
    this.el.appendChild(b);
    const span = document.createElement("span");
    span.className = "clock-left";
    span.textContent = line ? ` · ${line}` : "";
    this.el.appendChild(span);
    if (c.tempo === "live" && c.seat !== null && c.seat !== undefined) {
      const bank = document.createElement("div");
      bank.className = "small muted";
      bank.textContent = t("clock.banks", { banks: c.banks.map((x, i) => `${names[i] || ""} ${formatLeft(x)}`).join(", ") });
      this.el.appendChild(bank);
    }
    if (outs.length) {
      const o = document.createElement("div");
      o.className = "small muted clock-timeouts";
      o.textContent = t("clock.timeouts", { list: outs.join(", ") });
      this.el.appendChild(o);
    }
  }

  destroy() { clearInterval(this.timer); }
}
