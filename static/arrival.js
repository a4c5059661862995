// The arrival: the moment a friend takes the empty seat of the game its creator waits in, most
// often while the creator is in another tab or app, where they sent the link from. The creator's
// page says it every way it can: a sound, a notice, the tab's title (for either colour: the turn
// alone changes only White's) and, where the player allowed them, a browser notification. The
// title of a page out of view says it until the page is looked at again, or the game moves on.

import { t } from './i18n.js';

// Which seats a state has taken, to tell after a change which one was taken by it.
export function seatsTaken(state) {
  return { white: state.seats.white.taken, black: state.seats.black.taken };
}

// `side` took its seat, in words: the notice adds that the game begins, the title and the
// notification say it as it is.
function tookTheSeat(side) {
  return t('seat-taken-by', { side });
}

export class Arrival {
  // pageTitle: the tab's title without news; redraw(): called when the title's news goes.
  constructor(pageTitle, redraw) {
    this.pageTitle = pageTitle;
    this.unseen = null; // the side that arrived out of view, until the page is looked at
    document.addEventListener('visibilitychange', () => {
      if (document.hidden || !this.unseen) return;
      this.unseen = null;
      redraw();
    });
  }

  // The side that took the empty seat between `was` (the seats taken before; null: nothing seen
  // before) and `state`, on the page of `me` (the side it plays; null: it watches): never the
  // page's own seat, which its player took themselves. Null if none did.
  of(was, state, me) {
    if (!was) return null;
    const side = ['white', 'black'].find((s) => !was[s] && state.seats[s].taken);
    return side && side !== me ? side : null;
  }

  // Says that `side` arrived: the notice's words. A player's page out of view also keeps it in
  // the title, and tells `notifier` (which notifies only a page out of view).
  came(side, me, notifier, game) {
    const words = tookTheSeat(side);
    if (me) {
      if (document.hidden) this.unseen = side;
      notifier.tell(words, `${t('game-begins')} ${this.pageTitle}`, game);
    }
    return t('seat-taken-begins', { side });
  }

  // The tab's title: an arrival not yet seen, whether it is the player's turn, the page.
  title(myTurn, plies) {
    if (plies > 0) this.unseen = null;
    const news = [this.unseen && tookTheSeat(this.unseen), myTurn && t('your-turn')].filter(Boolean);
    return [...news, this.pageTitle].join(' · ');
  }
}
