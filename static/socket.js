// A game's WebSocket, kept open: it reconnects after a drop (backing off, with jitter), follows
// the game to the server that runs it, and closes when the page is left. Messages go to the page
// as they come; the game page plays over it, the embed only watches.
//
// Where the game's socket is. By default this page's own server, which serves the game or passes
// it on to the server that runs it; when the game's server can be reached at an address of its
// own, the page names it (`data-socket`), or a socket that lands elsewhere is told so (`moved`),
// and the page goes there. Should that address not answer right after being named (a firewall,
// this page's policy), the page comes back and asks to be served where it is (`?direct=0`).

import { t } from './i18n.js';

// A server that says nothing for this long is asked whether it is there (`ping`); one that then
// says nothing for `GIVE_UP_MS` more is taken for gone (paused, or cut off without a close) and
// left for another: the balancer sends the new socket to an instance that answers.
const QUIET_MS = 15000;
const GIVE_UP_MS = 5000;

export class GameSocket {
  // root: the page's element naming the game (`data-game`) and maybe its server's own socket
  // (`data-socket`); receive(msg): every message but `moved`; status(text, ok): the connection
  // in words; dropped(): the socket closed; seatMoved(): the seat it held moved to another
  // device (closed with 4410); watch: watch, whatever seat this browser holds (`?watch=1`).
  constructor(root, { receive, status, dropped = () => {}, seatMoved = () => {}, watch = false }) {
    this.id = root.dataset.game;
    this.receive = receive;
    this.status = status;
    this.dropped = dropped;
    this.seatMoved = seatMoved;
    this.watch = watch;
    this.socket = null;
    this.url = root.dataset.socket ?? null;
    this.movedTo = this.url !== null; // the url was named just now, and has not answered yet
    this.stayHere = false;
    this.moves = 0; // redirects in a row, without a game: past a few, they wait like any reconnect
    this.retry = 0;
    this.reconnecting = null;
    this.silence = null;
    // A page left by a link or the back button may be kept whole in the back/forward cache, its
    // socket open: the opponent would see its player present for good, and could never claim.
    // Leaving closes the socket; coming back from the cache opens a new one.
    window.addEventListener('pagehide', () => this.leave());
    window.addEventListener('pageshow', (ev) => {
      if (ev.persisted && !this.socket) this.connect();
    });
  }

  ownSocket() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${scheme}//${location.host}/api/games/${this.id}/ws${this.stayHere ? '?direct=0' : ''}`;
  }

  // `url`, watching if this page only watches.
  watching(url) {
    return this.watch ? `${url}${url.includes('?') ? '&' : '?'}watch=1` : url;
  }

  open(url) {
    try {
      return new WebSocket(this.watching(url));
    } catch {
      // Refused before it began (an address the page may not reach): serve it through here.
      this.url = null;
      this.stayHere = true;
      return new WebSocket(this.watching(this.ownSocket()));
    }
  }

  connect() {
    const directly = this.url !== null;
    const socket = this.open(this.url ?? this.ownSocket());
    this.socket = socket;
    let heard = false;
    this.status(t('connecting'), false);
    socket.onopen = () => {
      this.status(t('connected'), true);
      this.listen(socket);
    };
    socket.onmessage = (ev) => {
      heard = true;
      this.listen(socket);
      const msg = JSON.parse(ev.data);
      if (msg.type === 'moved') {
        this.url = msg.url;
        this.movedTo = true;
        return;
      }
      if (msg.type === 'hello') {
        this.retry = 0;
        this.moves = 0;
        this.movedTo = false;
      }
      this.receive(msg);
    };
    socket.onclose = (ev) => {
      clearTimeout(this.silence);
      this.dropped();
      if (ev.code === 4410) {
        // The seat moved to another device: its secret no longer works here, so the page comes
        // back at once as a spectator's.
        this.seatMoved();
        this.connect();
        return;
      }
      if (ev.code === 4404) {
        this.status(t('no-such-game'), false);
        return;
      }
      if (ev.code === 4000 || (ev.code === 4307 && this.moves < 3)) {
        // We closed it ourselves, to come back seated; or the game is served elsewhere.
        this.moves += ev.code === 4307 ? 1 : 0;
        this.connect();
        return;
      }
      if (directly && !heard) {
        // The game's own address did not answer: if it was named just now, it cannot be reached
        // from here; else its server may have gone, and this page's server knows who has the game.
        this.stayHere = this.movedTo;
        this.url = null;
        this.movedTo = false;
        if (this.stayHere) {
          this.connect();
          return;
        }
      }
      // Back off: 0.5 s, 1 s, 2 s ... up to 10 s, with jitter so that a restarted server is not
      // met by every client at once.
      const delay = Math.min(10000, 500 * 2 ** this.retry) * (0.75 + Math.random() / 2);
      this.retry += 1;
      this.status(t('reconnecting', { seconds: Math.ceil(delay / 1000) }), false);
      this.reconnecting = setTimeout(() => this.connect(), delay);
    };
  }

  // Heard from the server just now: it is asked again only after `QUIET_MS` of silence, and
  // given up `GIVE_UP_MS` after that (a close that the server need not answer: the socket is
  // treated as dropped, and the page reconnects as after any drop).
  listen(socket) {
    clearTimeout(this.silence);
    this.silence = setTimeout(() => {
      if (socket !== this.socket || socket.readyState !== WebSocket.OPEN) return;
      socket.send(JSON.stringify({ type: 'ping' }));
      this.silence = setTimeout(() => {
        if (socket !== this.socket) return;
        socket.onmessage = null;
        const onclose = socket.onclose;
        socket.onclose = null;
        socket.close(4001, 'the server is silent');
        onclose?.({ code: 4001 });
      }, GIVE_UP_MS);
    }, QUIET_MS);
  }

  // Sends a protocol message; false if the socket is not open.
  send(message) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  // Closes the socket to come back at once with the seat this browser has just taken.
  reseat() {
    this.socket?.close(4000, 'seated: reconnecting with the seat');
  }

  leave() {
    clearTimeout(this.reconnecting);
    clearTimeout(this.silence);
    if (this.socket) {
      this.socket.onclose = null;
      this.socket.close(1000, 'page left');
      this.socket = null;
    }
  }
}
