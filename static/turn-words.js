// A turn in words, as the puzzle and trainer pages announce it: who placed or moved where, and
// which man it removed.
import { t } from './i18n.js';

export function describe(turn, side) {
  const where = { side, from: turn.from, to: turn.to, removed: turn.remove };
  if (turn.remove) return t(turn.from ? 'turn-moved-removing' : 'turn-placed-removing', where);
  return t(turn.from ? 'turn-moved' : 'turn-placed', where);
}
