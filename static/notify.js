// Browser notifications for games played over days: a player who allows them is told of the
// opponent's turn (and of the end) while the game's page is open in the background. They come
// from this page, not from a push service: a closed page tells nothing, and the game waits on the
// server as ever.

const $ = (sel) => document.getElementById(sel);

export class Notifier {
  constructor() {
    this.wanted = false; // a seated player in a game of days per turn
    $('notify').addEventListener('click', async () => {
      await Notification.requestPermission();
      this.draw();
    });
  }

  static supported() {
    return 'Notification' in window;
  }

  // Whether this page may notify: a seated player, a game of days per turn still on.
  offer(seat, state) {
    this.wanted = Notifier.supported() && !!seat && /^\d+d$/.test(state.time_control) && state.status !== 'finished';
    this.draw();
  }

  draw() {
    const button = $('notify');
    const permission = Notifier.supported() ? Notification.permission : 'denied';
    button.hidden = !this.wanted || permission !== 'default';
    $('notify-on').hidden = !this.wanted || permission !== 'granted';
  }

  // Says `body` under the title, if notifications are allowed and the page is not in view. One
  // notification a game: a newer one replaces the last. Called before `offer` sees a new state,
  // so that the end of a game is told too.
  tell(title, body, game) {
    if (!this.wanted || !Notifier.supported() || Notification.permission !== 'granted' || !document.hidden) return;
    const note = new Notification(title, { body, tag: `merels-${game}`, icon: '/static/favicon.svg' });
    note.onclick = () => {
      window.focus();
      note.close();
    };
  }
}
