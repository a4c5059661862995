// Browser notifications, for a page open in the background: a player who allows them is told
// that the opponent has taken the seat (in every game: they are offered while waiting for the
// opponent, as lichess does), and in a game of days per turn of the opponent's turns and of the
// end. They come from this page, not from a push service: a closed page tells nothing, and the
// game waits on the server as ever.

import { t } from './i18n.js';

const $ = (sel) => document.getElementById(sel);

// Whether a game is played over days (its turns, not only its arrival, are notified).
export function overDays(state) {
  return /^\d+d$/.test(state.time_control);
}

export class Notifier {
  constructor() {
    this.wanted = false; // the switch is offered: see `offer`
    this.waiting = false; // for the opponent to arrive
    $('notify').addEventListener('click', async () => {
      await Notification.requestPermission();
      this.draw();
    });
  }

  static supported() {
    return 'Notification' in window;
  }

  // Whether this page offers notifications: a seated player waiting for the opponent, or in a
  // game of days per turn still on.
  offer(seat, state) {
    this.waiting = state.status === 'waiting';
    const days = overDays(state) && state.status !== 'finished';
    this.wanted = Notifier.supported() && !!seat && (this.waiting || days);
    this.draw();
  }

  draw() {
    const button = $('notify');
    const permission = Notifier.supported() ? Notification.permission : 'denied';
    button.hidden = !this.wanted || permission !== 'default';
    button.textContent = t(this.waiting ? 'notify-arrival' : 'notify-turn');
    const on = $('notify-on');
    on.hidden = !this.wanted || permission !== 'granted';
    on.textContent = t(this.waiting ? 'notify-arrival-on' : 'notify-turn-on');
  }

  // Says `body` under the title, if notifications are allowed and the page is not in view. One
  // notification a game: a newer one replaces the last.
  tell(title, body, game) {
    if (!Notifier.supported() || Notification.permission !== 'granted' || !document.hidden) return;
    const note = new Notification(title, { body, tag: `merels-${game}`, icon: '/static/favicon.svg' });
    note.onclick = () => {
      window.focus();
      note.close();
    };
  }
}
