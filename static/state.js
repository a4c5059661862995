// A game as the server sends it (the whole `state` once, then each `update` merged in), and what
// every page that shows it draws of it: the position on the board, who holds each seat, the
// clocks and the end, in words. Nothing here judges a turn: the server owns the rules.

import { menAt, moved } from './board.js';
import { t } from './i18n.js';

// Applies an update: the turn list grows by the last turn, or is cut after a takeback; the rest
// is replaced. False if the update does not follow from the state held (one was skipped).
export function merge(state, update) {
  const next = update.version === state.version + 1;
  if (update.version > state.version + 1) return false;
  if (next && update.plies === state.turns.length + 1) {
    state.turns.push(update.last_turn.turn);
    state.boards.push(update.men);
  } else if (update.plies <= state.turns.length) {
    state.turns.length = update.plies;
    state.boards.length = update.plies + 1;
    state.boards[update.plies] = update.men;
  } else {
    return false;
  }
  const { type, ...now } = update;
  Object.assign(state, now);
  return true;
}

// The state to hold after a `state` or `update` message, given the one held (null before the
// first), or null if the message changes nothing: it is older than the state held, or an update
// skipped a change, and then `resync` (asking for the whole game again) is called.
export function take(held, msg, resync) {
  if (held && msg.version < held.version) return null;
  if (msg.type === 'state') return msg;
  if (!held) return null;
  if (!merge(held, msg)) {
    resync();
    return null;
  }
  return held;
}

// What a board shows of the game after `view` turns (null: as it stands now): the men, the last
// turn (`last`) and, in the last position, the mills it closed (`mill`), as Sets of points.
export function position(state, view) {
  const n = state.turns.length;
  const men = menAt(view === null ? state.men : state.boards[view]);
  let last = new Set();
  if (view !== null && view > 0) {
    last = moved(state.boards[view - 1], state.boards[view], view % 2 === 1 ? 'white' : 'black');
  } else if (view === null && state.last_turn) {
    const t = state.last_turn;
    last = new Set([t.from, t.to].filter(Boolean));
  }
  const mill = new Set(view === null || view === n ? state.fresh_mills.flat() : []);
  return { men, last, mill };
}

// A seat in words, for the page of `me` (the side it plays; null: it watches): who holds it
// (`you`, the computer, `opponent`, `player` or `open seat`) and whether they are there
// (`online`, `offline`, `waiting`; the computer's thinking instead).
export function seatWords(state, side, me) {
  const seat = state.seats[side];
  let who = t('seat-open');
  if (me === side) who = t('you');
  else if (seat.computer) who = t('seat-computer', { level: seat.computer.level });
  else if (seat.taken) who = t(me ? 'seat-opponent' : 'seat-player');
  // `online` is also the presence's class; the computer is always there.
  const online = seat.computer ? 'online' : seat.taken ? (seat.connected ? 'online' : 'offline') : 'waiting';
  const words = { online: t('presence-online'), offline: t('presence-offline'), waiting: t('presence-waiting') };
  let presence = words[online];
  if (seat.computer) {
    const thinking = state.status === 'playing' && state.to_move === side;
    const last = seat.computer.thought_ms;
    if (thinking) presence = t('computer-thinking');
    else if (last != null) presence = t('computer-thought', { seconds: Math.round(last / 100) / 10 });
    else presence = t('computer-idle');
  }
  return { who, online, presence };
}

// Whether the game was called off before it began (aborted: the opponent never came or never
// came back, the challenge was cancelled or expired, or a player aborted before both had
// moved). Nobody played it, so its page offers no rematch, name or players' chat.
export function calledOff(state) {
  return state.status === 'finished' && state.termination === 'aborted';
}

// How a finished game ended, as the server words it, with the result (an aborted game has none).
export function outcome(state) {
  return state.result === '*' ? `${state.summary}.` : `${state.summary}. ${state.result}`;
}

// The clocks, formatted as players expect: days and hours for days per turn, tenths of a second
// when little time is left.
export function formatClock(ms) {
  const t = Math.max(0, ms);
  if (t >= 86400000) {
    const h = Math.floor(t / 3600000);
    return `${Math.floor(h / 24)} d ${String(h % 24).padStart(2, '0')} h`;
  }
  const s = Math.floor(t / 1000);
  const mmss = `${Math.floor(s / 60) % 60}:${String(s % 60).padStart(2, '0')}`;
  if (t >= 3600000) return `${Math.floor(s / 3600)}:${mmss.padStart(5, '0')}`;
  if (t < 10000) return `${mmss}.${Math.floor((t % 1000) / 100)}`;
  return mmss;
}

// Shows `clock` (the state's; null: none) on every `.clock` element of the page, by its
// `data-side`, the running one counted down by `elapsed` ms since the state arrived. The server
// decides when time is up; this only shows it.
export function showClocks(clock, elapsed) {
  for (const el of document.querySelectorAll('.clock')) {
    const side = el.dataset.side;
    el.hidden = !clock;
    if (!clock || !side) continue;
    const ms = clock[`${side}_ms`] - (clock.running === side ? elapsed : 0);
    el.textContent = formatClock(ms);
    el.classList.toggle('running', clock.running === side);
    el.classList.toggle('low', ms < 10000 && clock.running === side);
  }
}
