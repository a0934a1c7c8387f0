// The lobby's tempo choice: no clock, live (a clock per turn with a bank) or turn-based
// (hours per turn). A player whose time runs out gets a bot for that turn, and after
// a few timeouts for the rest of the game (docs/protocol.md, "tempo").
const UNITS = { s: 1, min: 60, h: 3600 };
const DEFAULTS = { live: [2, "min", 5], turn: [24, "h", 0] };

export function tempoFieldsHTML() {
  return `<fieldset class="tempo"><legend data-i18n="tempo.title"></legend>
    <label><span data-i18n="tempo.kind"></span>
      <select name="tempo"><option value="" data-i18n="tempo.none"></option>
        <option value="live" data-i18n="tempo.live"></option>
        <option value="turn" data-i18n="tempo.turn"></option></select></label>
    <div class="tempo-times" hidden>
      <label><span data-i18n="tempo.perMove"></span>
        <span class="row"><input name="per_move" type="number" min="0.1" step="any" value="2">
        <select name="per_move_unit"><option value="s" data-i18n="tempo.unit.s"></option>
          <option value="min" selected data-i18n="tempo.unit.min"></option>
          <option value="h" data-i18n="tempo.unit.h"></option></select></span></label>
      <label class="tempo-bank"><span data-i18n="tempo.bank"></span>
        <input name="bank" type="number" min="0" step="any" value="5"></label>
      <label><span data-i18n="tempo.maxTimeouts"></span>
        <input name="max_timeouts" type="number" min="1" max="20" value="3"></label>
    </div></fieldset>`;
}

/** Show the times that go with the chosen tempo, with that tempo's defaults. */
export function wireTempo(form) {
  const times = form.querySelector(".tempo-times");
  form.tempo.addEventListener("change", () => {
    const kind = form.tempo.value;
    times.hidden = !kind;
    if (!kind) return;
    const [n, unit, bank] = DEFAULTS[kind];
    form.per_move.value = String(n);
    form.per_move_unit.value = unit;
    form.bank.value = String(bank);
    form.querySelector(".tempo-bank").hidden = kind !== "live";
  });
}

/** The request's `tempo` (seconds), or null for a game without a clock. */
export function readTempo(form) {
  const kind = form.tempo && form.tempo.value;
  if (!kind) return null;
  const perMove = Number(form.per_move.value) * UNITS[form.per_move_unit.value];
  const tempo = { kind, per_move: perMove, max_timeouts: Number(form.max_timeouts.value) || 3 };
  tempo.bank = kind === "live" ? Number(form.bank.value || 0) * 60 : 0;
  return tempo;
}

/** "1:05", "2 h 03 min", "3 d 4 h": a time left, as long as it needs to be. */
export function formatLeft(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 3600) return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}
