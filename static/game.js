// The game page: connects to the game's WebSocket, draws the game as the server sends it, and
// sends the player's choice. The server owns the rules: what may be clicked comes from the legal
// turns it sends (in their parts, so nothing here parses notation), and nothing is played until
// the server has stored it. The whole game comes once (`state`); each change after is an
// `update` that says where the game stands, merged in (`state.js`).

import { Arrival, seatsTaken } from './arrival.js';
import { Board, menAt } from './board.js';
import './pictures.js';
import { Chat } from './chat.js';
import { copyOnClick } from './copy.js';
import { Notifier, overDays } from './notify.js';
import { NameForm, nameNode, rememberedName } from './name.js';
import { press, sameMove, targets as targetsOf } from './picking.js';
import { t } from './i18n.js';
import { GameSocket } from './socket.js';
import { Sounds } from './sound.js';
import { calledOff, outcome, position, seatWords, showClocks, take } from './state.js';

const root = document.getElementById('game');
const pageTitle = document.title;
const id = root.dataset.game;
const $ = (sel) => document.getElementById(sel);

let hello = null;
let state = null;
let board = null;
let selected = null; // a man chosen to move
let pending = null; // a move that closes a mill ({from, to}), waiting for the man to remove
let triedJoin = false;
let sentAt = null; // the version a turn was sent at: input waits until the game moves on
let sentTurn = null; // that turn, and the plies it was sent at: resent if a drop lost it
let unanswered = null; // a turn sent as the socket dropped: resent if the new state still wants it
let lastAnnounced = null;
let view = null; // looking back: how many turns into the game the board shows (null: now)
let receivedAt = 0; // when the current state arrived (performance.now()), for the clocks
// The board drawn from Black's side; turned by hand, as the player left it in this game, kept by
// the browser (else from the player's own side).
const flipKey = `merels.flip.${id}`;
let flippedByHand = localStorage.getItem(flipKey) !== null;
let flipped = localStorage.getItem(flipKey) === '1';
let endAnnounced = false; // the end of the game has been said to screen readers
let noteAnnounced = ''; // the clock note last said to screen readers (it is redrawn every second)
const notifier = new Notifier();
const sounds = new Sounds(root, $('mute'));
const arrival = new Arrival(pageTitle, () => render());
const socket = new GameSocket(root, {
  receive,
  status: setConn,
  dropped: () => {
    if (sentAt !== null) unanswered = sentTurn;
    sentAt = null;
  },
  // The seat was moved to another device: this page watches from now on, and says so.
  seatMoved: () => {
    $('seat-moved').hidden = false;
    $('handoff').hidden = true;
  },
});
const chat = new Chat((message) => socket.send(message));
const nameForm = new NameForm((message) => socket.send(message));

function setConn(text, ok) {
  const conn = $('conn');
  conn.textContent = text;
  conn.classList.toggle('ok', ok);
}

// "Continue on another device": the player first chooses whether the link moves the seat (this
// page then only watches) or opens it there too (both play it); each choice makes a fresh
// one-time link (and its QR code). The seat's own secret never appears in a link.
const handoffWords = {
  move: t('handoff-moves'),
  keep: t('handoff-keeps'),
};
async function makeHandoff(keep) {
  const link = $('handoff-link');
  const what = $('handoff-what');
  what.textContent = handoffWords[keep ? 'keep' : 'move'];
  what.hidden = false;
  $('handoff-made').hidden = false;
  link.value = t('handoff-making');
  $('handoff-qr').replaceChildren();
  try {
    const res = await fetch(`/api/games/${id}/handoff`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keep }),
    });
    const body = await res.json();
    if (!res.ok) throw new Error(body.message);
    link.value = body.url;
    // The server's own markup of the QR code, parsed as SVG (no script runs in it), so that no
    // URL the browser fetches carries the code.
    const qr = new DOMParser().parseFromString(body.qr, 'image/svg+xml').documentElement;
    $('handoff-qr').replaceChildren(document.importNode(qr, true));
  } catch (e) {
    link.value = t('handoff-failed', { why: e.message });
  }
}
$('handoff-move').addEventListener('click', () => makeHandoff(false));
$('handoff-keep').addEventListener('click', () => makeHandoff(true));
$('handoff-copy').addEventListener('click', () => navigator.clipboard?.writeText($('handoff-link').value));

// Asks for the whole game again, and the chat lines with it.
function resync() {
  chat.syncing();
  socket.send({ type: 'sync' });
}

function receive(msg) {
  switch (msg.type) {
    case 'hello':
      hello = msg;
      // A player sees the board from their own side (a visitor's seat comes with a later
      // hello), until they turn it with the switch.
      if (!flippedByHand) flipped = msg.seat === 'black';
      board = new Board($('board'), msg.board, activate, flipped);
      $('you').textContent = msg.seat ? t('you-play', { side: msg.seat }) : t('you-watch');
      chat.hello(msg.seat);
      nameForm.hello(msg.seat);
      chat.syncing(); // the history follows the state
      $('handoff').hidden = !msg.seat;
      break;
    case 'state':
    case 'update': {
      const before = offers();
      // An update that skipped a change asks for the whole game again.
      const next = take(state, msg, resync);
      if (next) {
        state = next;
        arrived(before);
      }
      break;
    }
    case 'rematch':
      // Players go to their new seat (this game's cookie holds it there too); spectators are
      // offered the new game.
      if (hello && hello.seat) {
        location.assign(`/g/${id}/rematch`);
      } else {
        const p = $('rematch-link');
        p.querySelector('a').href = `/g/${msg.game}`;
        p.hidden = false;
      }
      break;
    case 'chat':
      // A line missed: the whole game again, its chat with it.
      if (!chat.line(msg)) resync();
      break;
    case 'chat_history':
      chat.history(msg);
      break;
    case 'error':
      // A refused name is said by its form. An error while a line of chat, and no turn, is on
      // its way is the line's: said in the chat. The banner is for the game's errors and its end.
      if (nameForm.error(msg)) break;
      if (sentAt === null && chat.error(msg)) break;
      endedHere = null; // an end asked for and refused did not end the game
      showError(msg.message);
      sentAt = null;
      pending = null;
      selected = null;
      if (state) render();
      break;
    default:
      break;
  }
}

// Where the game stood before a change (its offers, turns, status and seats), to say what
// became of it after.
function offers() {
  if (!state) return null;
  return {
    draw: state.draw_offer,
    takeback: state.takeback_offer,
    rematch: state.rematch_offer,
    plies: state.turns.length,
    status: state.status,
    seats: seatsTaken(state),
  };
}

// What the change from `was` sounds like: the end, a mill, or a turn.
function soundOf(was) {
  if (!was) return;
  if (state.status === 'finished' && was.status !== 'finished') sounds.play('end');
  else if (state.turns.length > was.plies) sounds.play(state.fresh_mills.length ? 'mill' : 'turn');
}

// A player away from the page (a game over days) is told of the opponent's turn and of the end.
function notifyOf(was) {
  if (!was || !hello || !hello.seat || !overDays(state)) return;
  if (state.status === 'finished' && was.status !== 'finished') {
    notifier.tell(t('game-over'), `${state.summary}.`, id);
  } else if (state.turns.length > was.plies && myTurn()) {
    notifier.tell(t('your-turn'), t('opponent-played', { turn: state.turns[state.turns.length - 1], page: pageTitle }), id);
  }
}

// What became of the offers, in words for the page and screen readers: a declined draw or
// takeback, an accepted takeback (the board changes), a new offer.
function offerNews(was) {
  if (!was || !hello) return null;
  const me = hello.seat;
  // Who did it, as the messages choose their words by it: `you`, `opponent`, or a colour.
  const who = (side) => {
    if (!me) return side;
    return side === me ? 'you' : 'opponent';
  };
  const other = (side) => (side === 'white' ? 'black' : 'white');
  const plies = state.turns.length;
  const playing = state.status === 'playing';
  if (was.takeback && !state.takeback_offer) {
    if (plies < was.plies) {
      const n = was.plies - plies;
      return t('takeback-accepted', { count: n });
    }
    if (playing && plies === was.plies) return t('takeback-declined', { who: who(other(was.takeback)) });
  }
  if (was.draw && !state.draw_offer && playing && plies === was.plies) {
    return t('draw-declined', { who: who(other(was.draw)) });
  }
  if (was.draw && !state.draw_offer && playing && plies > was.plies) {
    return t('draw-lapsed', { who: who(other(was.draw)) });
  }
  if (!was.draw && state.draw_offer) return t('draw-offered', { who: who(state.draw_offer) });
  if (!was.takeback && state.takeback_offer) return t('takeback-asked', { who: who(state.takeback_offer) });
  if (!was.rematch && state.rematch_offer) return t('rematch-offered', { who: who(state.rematch_offer) });
  if (was.rematch && !state.rematch_offer && !state.rematch) {
    return t('rematch-declined', { who: who(other(was.rematch)) });
  }
  return null;
}

function arrived(before) {
  receivedAt = performance.now();
  resend();
  // The turn sent is stored (or the game moved on without it): an error from now on is not its.
  if (sentAt !== null && state.version > sentAt) sentAt = null;
  // Lines said that never reached this page: the whole game again, lines included.
  if (chat.behind(state.chat)) resync();
  const me = hello && hello.seat;
  // The opponent took the empty seat: said every way there is, for a creator who looks elsewhere.
  const came = arrival.of(before && before.seats, state, me);
  if (came) sounds.play('arrival');
  else soundOf(before);
  notifyOf(before);
  notifier.offer(me, state);
  const notice = $('notice');
  const news = came ? arrival.came(came, me, notifier, id) : offerNews(before);
  if (news) {
    notice.textContent = news;
    notice.classList.toggle('arrival', !!came);
    notice.hidden = false;
    announce(news);
  } else if (before && (state.turns.length !== before.plies || state.status !== before.status)) {
    notice.hidden = true; // a turn or the end moves the game on: old news goes
  }
  if (pending && !turns().some((t) => sameMove(t, pending) && t.remove)) pending = null;
  if (selected && !isMine(selected)) selected = null;
  render();
  nameForm.state(state);
  maybeJoin();
  chat.opponentIsComputer(!!(hello && hello.seat && state.seats[hello.seat === 'white' ? 'black' : 'white'].computer));
  chat.neverStarted(calledOff(state));
  showPreparing();
}

// While the server builds the computer's solved table for this board, it plays from its search:
// the page says so, with the server's estimate, and says when the perfect play is ready.
let preparingSeen = false;
function showPreparing() {
  const note = $('computer-note');
  const computer = ['white', 'black'].map((c) => state.seats[c].computer).find((c) => c);
  const left = computer?.preparing_s;
  if (left) {
    preparingSeen = true;
    note.textContent = t('computer-preparing', { seconds: left });
    note.hidden = false;
  } else if (preparingSeen && computer) {
    note.textContent = t('computer-ready');
    note.hidden = false;
  } else {
    note.hidden = true;
  }
}

// A visitor who opens an invite chooses: take the empty seat, or just watch. The seat is taken
// only by that click, so link previews and crawlers never take one.
function maybeJoin() {
  const choose = $('join-or-watch');
  const open = hello && !hello.seat && state.status === 'waiting' && !triedJoin;
  choose.hidden = !open;
  if (!open) return;
  const waiting = state.seats.white.taken ? 'white' : 'black';
  // Only a creator who is here is waiting: one who has gone is said to be offline.
  const here = state.seats[waiting].connected;
  $('invite-text').textContent = t(here ? 'invite-waiting' : 'invite-offline', { side: waiting });
}

$('take-seat').addEventListener('click', async () => {
  triedJoin = true;
  $('join-or-watch').hidden = true;
  // The remembered name takes the seat with it; one the server no longer takes is left out.
  const join = (body) =>
    fetch(`/api/games/${id}/join`, {
      method: 'POST',
      credentials: 'same-origin',
      ...(body && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
  const name = rememberedName();
  let res = await join(name && { name });
  if (res.status === 400 && name) res = await join(null);
  if (res.ok) socket.reseat();
  else showError(t('seat-taken'));
});

$('just-watch').addEventListener('click', () => {
  triedJoin = true;
  $('join-or-watch').hidden = true;
  announce(t('you-watch'));
});

function myTurn() {
  return state && hello && hello.seat && state.status === 'playing' && state.to_move === hello.seat;
}

function isMine(point) {
  return hello && hello.seat && menAt(state.men).get(point) === hello.seat;
}

// The legal turns of this player, in their parts: {turn, from, to, remove}; none while they
// look back through the game.
function turns() {
  return myTurn() && view === null ? state.legal : [];
}

function targets() {
  return targetsOf(turns(), selected, pending);
}

function activate(point) {
  // A double click or tap would send the turn twice: the second one "not your turn".
  if (sentAt !== null && state && state.version === sentAt) return;
  const all = turns();
  if (!all.length) return;
  const next = press(all, selected, pending, point);
  if (next.turn) send(next.turn.turn);
  else {
    ({ selected, pending } = next);
    if (next.mill) announce(t('mill-remove'));
  }
  render();
}

// Drops a turn begun but not sent: a man chosen, or a mill's removal not yet chosen.
function cancelTurn() {
  selected = null;
  pending = null;
  render();
}

$('cancel-remove').addEventListener('click', cancelTurn);

$('flip').addEventListener('click', () => {
  if (!hello) return;
  flipped = !flipped;
  flippedByHand = true;
  try {
    localStorage.setItem(flipKey, flipped ? '1' : '0');
  } catch {
    // Private windows may refuse storage: the board stays turned for this page.
  }
  board = new Board($('board'), hello.board, activate, flipped);
  render();
});

// A turn typed in notation: played if it is one of the legal turns the server sent, as written
// there (nothing here parses notation).
$('type-turn').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = $('typed');
  const text = input.value.trim().toLowerCase();
  if (!text) return;
  if (!myTurn()) {
    showError(t('not-your-turn'));
    return;
  }
  const turn = turns().find((t) => t.turn === text);
  if (!turn) {
    showError(t('illegal-turn', { turn: text }));
    return;
  }
  input.value = '';
  send(turn.turn);
});

function send(text) {
  selected = null;
  pending = null;
  unanswered = null;
  if (socket.send({ type: 'move', move: text })) {
    sentAt = state.version;
    sentTurn = { turn: text, plies: state.plies };
  } else showError(t('turn-not-sent'));
}

// After a reconnect (docs/protocol.md, "Reconnecting"): a turn sent as the socket dropped was
// stored or lost, and only the new state says which. Still this player's turn at the same ply,
// with the turn legal: it was lost, and is sent again. Anything else: it was played, or the game
// moved on without it.
function resend() {
  if (!unanswered) return;
  const lost = unanswered;
  unanswered = null;
  const me = hello && hello.seat;
  if (state.status === 'playing' && state.to_move === me && state.plies === lost.plies
      && state.legal.some((t) => t.turn === lost.turn)) {
    send(lost.turn);
  }
}

function showError(message) {
  const banner = $('banner');
  banner.textContent = message;
  banner.hidden = false;
  banner.classList.add('error');
  announce(message);
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => {
    banner.classList.remove('error');
    if (state) render();
  }, 4000);
}

function announce(text) {
  $('announce').textContent = text;
}

// A turn in words, for screen readers: `side` played it.
function describe(turn, side) {
  const where = { side, from: turn.from, to: turn.to, removed: turn.remove };
  if (turn.remove) return t(turn.from ? 'turn-moved-removing' : 'turn-placed-removing', where);
  return t(turn.from ? 'turn-moved' : 'turn-placed', where);
}

function render() {
  if (!state || !board) return;
  // A finished game is a replay: the board shows the position after `view` turns. During play
  // the player may look back too (`view` set), and comes back to the game as it stands.
  const n = state.turns.length;
  const finished = state.status === 'finished';
  if (view !== null && view > n) view = n;
  if (finished && view === null) view = n;
  const replay = view !== null;
  const { men, last, mill } = position(state, view);
  const removable = new Set();
  if (pending) {
    for (const t of turns()) if (sameMove(t, pending) && t.remove) removable.add(t.remove);
    // The man that closed the mill is drawn where it went while its removal is chosen.
    if (pending.from) men.delete(pending.from);
    men.set(pending.to, hello.seat);
  }
  $('removing').hidden = !pending;
  board.show(men, {
    targets: targets(),
    selected: new Set(selected ? [selected] : pending ? [pending.to] : []),
    removable,
    last,
    mill,
  });
  const controls = $('replay');
  // Nothing to step through before the first turn (or in a game aborted before it).
  controls.hidden = n === 0;
  $('replay-at').textContent = `${replay ? view : n} / ${n}`;
  $('back-to-game').hidden = finished || !replay;
  // A finished game with turns can be opened in the computer's analysis.
  const analysis = $('analysis-link');
  analysis.hidden = !finished || n === 0;
  if (!analysis.hidden) analysis.querySelector('a').href = `/g/${id}/analysis`;

  // Turn list: one numbered line per pair of turns, White's then Black's.
  const list = $('turns');
  const rows = [];
  for (let i = 0; i < state.turns.length; i += 2) {
    const li = document.createElement('li');
    state.turns.slice(i, i + 2).forEach((t, j) => {
      const span = document.createElement('span');
      span.textContent = t;
      span.dataset.ply = String(i + j + 1);
      span.tabIndex = 0;
      if (replay && i + j === view - 1) span.className = 'current';
      li.appendChild(span);
    });
    rows.push(li);
  }
  list.replaceChildren(...rows);
  list.scrollTop = list.scrollHeight;

  // Both sides.
  const sides = $('sides');
  sides.replaceChildren(
    ...['white', 'black'].map((c) => {
      const div = document.createElement('div');
      div.className = `side ${c}${state.status === 'playing' && state.to_move === c ? ' to-move' : ''}`;
      const seat = state.seats[c];
      const { who, online, presence } = seatWords(state, c, hello && hello.seat);
      div.innerHTML = `<strong></strong> <span class="name"></span> <span class="who"></span>
        <span class="presence ${online}"></span><br>
        <span class="in-hand"></span> <b class="hand"></b> · <span class="lost"></span> <b class="removed"></b><span class="flies" hidden></span>`;
      div.querySelector('strong').textContent = t(c);
      div.querySelector('.in-hand').textContent = t('side-in-hand');
      div.querySelector('.lost').textContent = t('side-lost');
      div.querySelector('.flies').textContent = ` · ${t('side-may-fly')}`;
      div.querySelector('.who').textContent = `(${who})`;
      if (seat.name) div.querySelector('.name').replaceChildren(nameNode(seat.name));
      div.querySelector('.presence').textContent = presence;
      // A man placed to close a mill has left the hand, though the turn is not sent yet.
      const placing = pending && !pending.from && c === hello.seat ? 1 : 0;
      div.querySelector('.hand').textContent = state.hand[c] - placing;
      div.querySelector('.removed').textContent = state.removed[c];
      // Down to three with flying on: once placed, a man may go to any empty point.
      div.querySelector('.flies').hidden = !(state.flying[c] && state.hand[c] === 0);
      return div;
    }),
  );

  // The clocks beside the board: the side drawn at the top of the board has the top one.
  const top = flipped ? 'white' : 'black';
  for (const [where, side] of [['clock-top', top], ['clock-bottom', top === 'white' ? 'black' : 'white']]) {
    const bar = $(where);
    bar.hidden = !state.clock;
    bar.dataset.side = side;
    bar.querySelector('.clock').dataset.side = side;
    const name = t(side);
    const named = state.seats[side].name;
    const you = hello && hello.seat === side ? ` (${t('you')})` : '';
    bar.querySelector('.clock-name').replaceChildren(...(named ? [nameNode(named), ` · ${name}${you}`] : [`${name}${you}`]));
  }

  // Status line and banner.
  const status = $('status');
  const banner = $('banner');
  document.title = arrival.title(myTurn(), n);
  if (state.status === 'finished') {
    // The server words every end; an aborted game has no result to show. A player hears first
    // how it went for them.
    const mine = hello && hello.seat && state.winner;
    const lead = mine ? `${t(state.winner === hello.seat ? 'you-won' : 'you-lost')} ` : '';
    const text = `${lead}${outcome(state)}`;
    status.textContent = text; // beside the board too, by the Rematch button: not at the fold
    if (!banner.classList.contains('error')) {
      banner.textContent = text;
      banner.hidden = false;
    }
  } else {
    if (state.status === 'waiting') {
      // The waiting survives the page: its creator may close it and come back by My games.
      status.textContent =
        hello && hello.seat
          ? t('waiting-creator')
          : t('waiting-opponent');
    } else if (view !== null) {
      status.textContent = t('looking-back', { turn: view, count: n });
      if (myTurn()) status.textContent += ` ${t('it-is-your-turn')}`;
    } else if (myTurn()) {
      status.textContent = t(pending ? 'choose-removal' : 'your-turn-now');
    } else {
      status.textContent = t('to-move', { side: state.to_move });
    }
    if (!banner.classList.contains('error')) banner.hidden = true;
  }
  // Resign and abort, for the seated players of a game that is on. Abort only before both
  // players have moved. Each asks once more before it acts.
  const seated = hello && hello.seat && state.status !== 'finished';
  // A game called off before it began has nothing to play again: its page offers the open
  // challenges and a new game instead (showCalledOff).
  const over = hello && hello.seat && state.status === 'finished' && !state.rematch && !calledOff(state);
  $('actions').hidden = !seated && !over;
  const rematch = $('rematch');
  rematch.hidden = !over;
  if (over) {
    const mine = state.rematch_offer === hello.seat;
    rematch.disabled = mine;
    rematch.textContent = t(mine ? 'rematch-offered-button' : state.rematch_offer ? 'rematch-accept' : 'rematch');
  }
  $('rematch-decline').hidden = !over || !state.rematch_offer || state.rematch_offer === hello.seat;
  if (state.rematch && (!hello || !hello.seat)) {
    const p = $('rematch-link');
    p.querySelector('a').href = `/g/${state.rematch}`;
    p.hidden = false;
  }
  $('resign').hidden = !seated || state.status !== 'playing';
  $('type-turn').hidden = !seated || state.status !== 'playing';
  // A game nobody has joined is cancelled (it leaves the open challenges); once on, aborted.
  $('abort').hidden = !seated || state.status !== 'playing' || state.turns.length >= 2;
  $('cancel').hidden = !seated || state.status !== 'waiting';
  showCalledOff();
  const playing = seated && state.status === 'playing';
  const offered = state.draw_offer;
  const theirs = playing && offered && offered !== hello.seat;
  $('draw-offer').hidden = !playing || Boolean(offered);
  $('draw-accept').hidden = !theirs;
  $('draw-decline').hidden = !theirs;
  const asked = state.takeback_offer;
  const askedOfMe = playing && asked && asked !== hello.seat;
  // Only a player with a turn of their own on the board may ask for it back.
  const ownTurns = hello.seat === 'white' ? state.turns.length : state.turns.length - 1;
  $('takeback-offer').hidden = !playing || Boolean(asked) || ownTurns < 1;
  $('takeback-accept').hidden = !askedOfMe;
  $('takeback-decline').hidden = !askedOfMe;
  if (askedOfMe) status.textContent += ` ${t('opponent-asks-takeback')}`;
  if (theirs) status.textContent += ` ${t('opponent-offers-draw')}`;
  else if (playing && offered) status.textContent += ` ${t('you-offered-draw')}`;

  const claimable = playing && state.claim && state.claim.by === hello.seat;
  $('claim').hidden = !claimable;
  tick();

  $('spectators').textContent = t('spectators', { count: state.spectators });
  root.dataset.version = String(state.version);
  root.dataset.status = state.status;

  if (state.last_turn && lastAnnounced !== state.turns.length) {
    lastAnnounced = state.turns.length;
    const mover = state.turns.length % 2 === 1 ? 'white' : 'black';
    let text = describe(state.last_turn, mover);
    if (state.status === 'finished') text += `. ${banner.textContent}`;
    else if (myTurn()) text += `. ${t('your-turn-now')}`;
    announce(text);
    endAnnounced = state.status === 'finished';
  }
  // An end that came without a turn (a resignation, an agreement, time, an abort, a claim).
  if (state.status === 'finished' && !endAnnounced) {
    endAnnounced = true;
    announce(banner.textContent);
  }
}

// Counts down what the server said, from when it said it: the running clock, the time left for
// a first move, and the wait before an absent opponent can be claimed against. The server
// decides when time is up; this only shows it.
function tick() {
  if (!state) return;
  const elapsed = performance.now() - receivedAt;
  const clock = state.clock;
  showClocks(clock, elapsed);
  const note = $('clock-note');
  let text = '';
  let kind = ''; // what the note says, without its countdown: said once to screen readers
  if (state.status === 'playing' && clock && clock.first_move_ms !== null) {
    const left = Math.max(0, Math.ceil((clock.first_move_ms - elapsed) / 1000));
    const side = state.to_move;
    const away = !state.seats[side].connected;
    const who = hello && hello.seat === side ? 'you' : side;
    // The countdown runs only while its player is here: an absent one has the absence wait.
    text = away
      ? t('first-move-away', { side, seconds: left })
      : t('first-move-left', { who, seconds: left });
    kind = `first move ${state.to_move}`;
  }
  const claim = state.status === 'playing' ? state.claim : null;
  if (claim) {
    const left = Math.max(0, Math.ceil((claim.in_ms - elapsed) / 1000));
    const gone = t('side-left', { side: state.to_move });
    const mine = hello && hello.seat === claim.by;
    if (mine) {
      text = `${gone} ${left > 0 ? t('claim-soon', { seconds: left }) : t('claim-now')}`;
      kind = left > 0 ? 'claim soon' : 'claim now';
      $('claim-win').disabled = left > 0;
      $('claim-draw').disabled = left > 0;
    } else {
      text = gone;
      kind = 'gone';
    }
  }
  note.textContent = text;
  note.hidden = !text;
  if (kind !== noteAnnounced) {
    noteAnnounced = kind;
    if (text) announce(text);
  }
}

setInterval(tick, 100);

// Goes back through the game, or forward again: `where` is a button's step or a ply. During
// play the last position is the game as it stands, where turns are played again.
function step(where) {
  if (!state || state.status === 'waiting') return;
  const n = state.turns.length;
  const at = view === null ? n : view;
  const to = { first: 0, prev: at - 1, next: at + 1, last: n }[where] ?? where;
  view = Math.max(0, Math.min(n, to));
  selected = null;
  pending = null;
  if (state.status !== 'finished' && view === n) {
    view = null;
    render();
    announce(myTurn() ? `${t('back-in-game')} ${t('your-turn-now')}` : t('back-in-game'));
    return;
  }
  render();
  announce(view === 0 ? t('replay-start') : t('replay-turn', { turn: view, played: state.turns[view - 1] }));
}

$('back-to-game').addEventListener('click', () => step('last'));
// A turn in the list shows the position after it.
$('turns').addEventListener('click', (ev) => {
  if (ev.target.dataset.ply) step(Number(ev.target.dataset.ply));
});
$('turns').addEventListener('keydown', (ev) => {
  if ((ev.key === 'Enter' || ev.key === ' ') && ev.target.dataset.ply) {
    ev.preventDefault();
    step(Number(ev.target.dataset.ply));
  }
});

for (const button of document.querySelectorAll('#replay button')) {
  button.addEventListener('click', () => step(button.dataset.step));
}

document.addEventListener('keydown', (ev) => {
  if (ev.key === 'Escape' && (selected || pending)) cancelTurn();
  if (ev.target instanceof HTMLInputElement) return;
  const keys = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' };
  if (keys[ev.key] && state) {
    ev.preventDefault();
    step(keys[ev.key]);
  }
});

// A player whose game was called off before it began (the opponent never came, or never came
// back, the challenge was cancelled or expired, a player aborted it) is told why, and offered
// the open challenges and a new game, once.
let calledOffShown = false;
let endedHere = null; // the end this page asked for ('cancel' or 'abort'), to say it was theirs
async function showCalledOff() {
  const box = $('called-off');
  if (!hello || !hello.seat || !calledOff(state)) {
    box.hidden = true;
    return;
  }
  // Nothing is left to share or to continue elsewhere (a reconnect's hello may show them again).
  document.querySelector('.share').hidden = true;
  $('handoff').hidden = true;
  if (calledOffShown) return;
  calledOffShown = true;
  const other = state.seats[hello.seat === 'white' ? 'black' : 'white'];
  let why = 'called-off';
  if (endedHere === 'cancel') why = 'called-off-cancelled';
  else if (endedHere === 'abort') why = 'called-off-aborted';
  else if (!other.taken) why = 'called-off-nobody-came';
  else if (!other.connected) why = 'called-off-not-back';
  $('called-off-text').textContent = t(why);
  box.hidden = false;
  const list = $('called-off-list');
  try {
    const res = await fetch('/api/challenges', { credentials: 'same-origin' });
    const all = res.ok ? await res.json() : [];
    const open = all.filter((c) => c.id !== id);
    list.replaceChildren(
      ...open.map((c) => {
        const li = document.createElement('li');
        const a = document.createElement('a');
        a.href = `/g/${c.id}`;
        a.textContent = c.name;
        li.append(a, `, ${c.time}: ${t('challenge-waiting', { side: c.waiting })}`);
        return li;
      }),
    );
    $('called-off-none').hidden = open.length > 0;
  } catch {
    $('called-off-none').hidden = false;
  }
}

for (const [button, type] of [
  ['resign', 'resign'],
  ['abort', 'abort'],
  ['cancel', 'cancel'],
]) {
  const el = $(button);
  const label = el.textContent; // the page's words for it
  el.addEventListener('click', () => {
    if (el.dataset.armed !== 'yes') {
      el.dataset.armed = 'yes';
      el.textContent = t('click-again', { action: label });
      setTimeout(() => {
        el.dataset.armed = '';
        el.textContent = label;
      }, 3000);
      return;
    }
    el.dataset.armed = '';
    el.textContent = label;
    if (socket.send({ type }) && type !== 'resign') endedHere = type;
  });
}

for (const [button, type] of [
  ['draw-offer', 'draw_offer'],
  ['draw-accept', 'draw_accept'],
  ['draw-decline', 'draw_decline'],
  ['rematch', 'rematch'],
  ['rematch-decline', 'rematch_decline'],
  ['takeback-offer', 'takeback_offer'],
  ['takeback-accept', 'takeback_accept'],
  ['takeback-decline', 'takeback_decline'],
  ['claim-win', 'claim_win'],
  ['claim-draw', 'claim_draw'],
]) {
  $(button).addEventListener('click', () => socket.send({ type }));
}

// The system's share sheet, where the browser has one (phones, mostly).
if (navigator.share) {
  const native = $('share-native');
  native.hidden = false;
  native.addEventListener('click', () => {
    navigator.share({ title: document.title, url: $('share').value }).catch(() => {});
  });
}

copyOnClick($('copy'), $('share'));

// A "continue on another device" link carries its one-time code in the fragment, which no server
// sees: the page redeems it before its socket opens, and takes it out of the address bar. Taken,
// the seat's cookie is set and the page loads again as the player's; used already or expired, the
// page stays a spectator's and says why.
async function takeHandoff() {
  const code = new URLSearchParams(location.hash.slice(1)).get('code');
  if (code === null) return false;
  history.replaceState(null, '', location.pathname + location.search);
  const res = await fetch(`/api/games/${id}/handoff/take`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  }).catch(() => null);
  if (res?.ok) {
    location.reload();
    return true;
  }
  const body = await res?.json().catch(() => null);
  const stale = $('handoff-stale');
  stale.textContent =
    body?.error === 'not_allowed'
      ? t('handoff-stale')
      : t('handoff-broken', { why: body?.message ?? t('no-answer') });
  stale.hidden = false;
  return false;
}

takeHandoff().then((reloading) => {
  if (!reloading) socket.connect();
});
