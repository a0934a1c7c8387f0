// Paying by picking cards, as at the table: the player selects travel cards in their hand,
// then the town; the step whose payment is exactly those cards is the one taken. This is
// how a caravan (any 3 or 4 cards) or the boatmen are paid without a list of every
// combination of the hand.

/** The cards a move pays, as a sorted list of kinds (null when unknown). */
export function paymentOf(mv, costOf) {
  if (mv.pay === "caravan" || mv.pay === "boatmen") return [...mv.cards].sort();
  const c = costOf(mv);
  return c ? Array(c.cards).fill(c.card) : null;
}

export function sameCards(a, b) {
  if (!a || !b || a.length !== b.length) return false;
  const x = [...a].sort(), y = [...b].sort();
  return x.every((k, i) => k === y[i]);
}

/** The move among `moves` paid by exactly the picked cards, or null. */
export function moveForPick(moves, picked, costOf) {
  if (!picked.length) return null;
  return moves.find((mv) => sameCards(paymentOf(mv, costOf), picked)) || null;
}

/** Moves paid by any N cards (caravan, boatmen): reached by picking cards, not from a list. */
export const pickOnly = (mv) => mv.pay === "caravan" || mv.pay === "boatmen";
