// A turn chosen on the board in parts, by the game page and the puzzle page alike: a man to
// move (or an empty point to place on), where it goes, and after a mill the man to remove.
// Pure: given the legal turns in their parts ({from, to, remove}) and what is chosen so far, it
// says what a press on a point leads to; the page keeps the choice and plays the turn.

// Whether two turns move the same man to the same point (whatever they remove).
export function sameMove(a, b) {
  return (a.from || null) === (b.from || null) && a.to === b.to;
}

// The points a press may go to next: the points of a chosen man's turns, else every point to
// place on and every man that can move; none while a mill's removal is chosen (the men to
// remove are marked apart).
export function targets(legal, selected, pending) {
  if (pending) return new Set();
  if (selected) return new Set(legal.filter((t) => t.from === selected).map((t) => t.to));
  const set = new Set(legal.filter((t) => !t.from).map((t) => t.to));
  for (const t of legal) if (t.from) set.add(t.from);
  return set;
}

// What a press on `point` leads to: `{turn}`, a whole turn to play; or the choice as it now
// stands, `{selected, pending, mill}`, where `mill` says a removal is now to be chosen.
export function press(legal, selected, pending, point) {
  if (pending) {
    const turn = legal.find((t) => sameMove(t, pending) && t.remove === point);
    return turn ? { turn } : { selected, pending, mill: false };
  }
  const chosen = selected
    ? legal.filter((t) => t.from === selected && t.to === point)
    : legal.filter((t) => !t.from && t.to === point);
  if (chosen.length === 1 && !chosen[0].remove) return { turn: chosen[0] };
  if (chosen.length > 0) {
    return { selected, pending: { from: chosen[0].from, to: chosen[0].to }, mill: true };
  }
  if (point === selected) return { selected: null, pending, mill: false };
  if (legal.some((t) => t.from === point)) return { selected: point, pending, mill: false };
  return { selected, pending, mill: false };
}
