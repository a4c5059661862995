// The embed: a game in another site's page, in a frame. It only watches: the board, the players
// and the clocks, live over the game's socket as a spectator's (whatever seat this browser
// holds), with no seat, no actions and no chat; or, when the page brings the game with it
// (`?ply=N`), that one position, unmoving, and no socket at all.

import { Board } from './board.js';
import { nameNode } from './name.js';
import { t } from './i18n.js';
import { GameSocket } from './socket.js';
import { outcome, position, seatWords, showClocks, take } from './state.js';

const root = document.getElementById('embed');
const $ = (sel) => document.getElementById(sel);
const flipped = root.dataset.flipped === '1';
const still = $('embed-data') ? JSON.parse($('embed-data').textContent) : null;

let board = null;
let state = null;
let receivedAt = 0; // when the state arrived (performance.now()), for the clocks
const view = still ? still.ply : null; // the position shown (null: the game as it stands)

// Where the game stands, in a few words: the turn shown, or whose turn it is, or how it ended.
function words() {
  const n = state.turns.length;
  if (view !== null) {
    const at = view === 0 ? t('replay-start-short') : t('after-turn', { turn: view, count: n, played: state.turns[view - 1] });
    return view === n && state.status === 'finished' ? `${at}. ${outcome(state)}` : `${at}.`;
  }
  if (state.status === 'finished') return outcome(state);
  if (state.status === 'waiting') return t('waiting-for-opponent');
  return t('to-move', { side: state.to_move });
}

function render() {
  if (!state || !board) return;
  const { men, last, mill } = position(state, view);
  board.show(men, { targets: new Set(), selected: new Set(), removable: new Set(), last, mill });
  for (const bar of root.querySelectorAll('.embed-side')) {
    const side = bar.dataset.side;
    const { who, online, presence: words } = seatWords(state, side, null);
    // A player by the name they gave (as text, isolated), else in words.
    const name = state.seats[side].name;
    bar.querySelector('.who').replaceChildren(name ? nameNode(name) : `(${who})`);
    const presence = bar.querySelector('.presence');
    presence.textContent = view === null ? words : '';
    presence.className = `presence ${online}`;
    bar.classList.toggle('to-move', view === null && state.status === 'playing' && state.to_move === side);
  }
  $('status').textContent = words();
  root.dataset.version = String(state.version);
  root.dataset.plies = String(state.turns.length);
}

if (still) {
  // One position: no socket, and no clocks (they are not kept for a past turn).
  board = new Board($('board'), still.board, () => {}, flipped);
  state = still.state;
  render();
} else {
  const socket = new GameSocket(root, {
    watch: true,
    status: (text, ok) => {
      $('conn').textContent = ok ? '' : text;
    },
    receive(msg) {
      if (msg.type === 'hello') {
        board = new Board($('board'), msg.board, () => {}, flipped);
        // Watching only: neither chat is heard.
        socket.send({ type: 'chat_settings', players: false, spectators: false });
      } else if (msg.type === 'state' || msg.type === 'update') {
        const next = take(state, msg, () => socket.send({ type: 'sync' }));
        if (!next) return;
        state = next;
        receivedAt = performance.now();
      }
      render();
    },
  });
  setInterval(() => {
    if (state) showClocks(state.clock, performance.now() - receivedAt);
  }, 100);
  socket.connect();
}
