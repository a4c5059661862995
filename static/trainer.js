// The endgame trainer's page: a won endgame on the board, played out against the table's best
// defence (POST /api/trainer/{variant}/turn with the position the page stands at). As on the
// puzzle page the server owns the rules: what may be clicked comes from the legal turns it
// sends, in their parts (static/picking.js). After each turn the page says how many plies are
// left with perfect play, and plainly when a turn let the win slip.

import { Board, menAt } from './board.js';
import { t } from './i18n.js';
import { press, sameMove, targets as targetsOf } from './picking.js';
import { describe } from './turn-words.js';

const $ = (sel) => document.getElementById(sel);
const data = JSON.parse($('trainer-data').textContent);
const start = data.start;
const me = start.to_move;
const them = me === 'white' ? 'black' : 'white';

let men = menAt(start.men);
let hand = { ...start.hand };
let legal = start.legal;
let position = start.position; // the position string the player is to move in
let last = new Set();
let selected = null; // a man chosen to move
let pending = null; // a move that closes a mill ({from, to}), waiting for the man to remove
let busy = false; // a turn is with the server
let over = false;
let expected = 'win'; // what the player still has with perfect play: 'win', 'draw' or 'loss'

const board = new Board($('board'), data.board, activate, me === 'black');

function activate(point) {
  if (busy || over) return;
  const next = press(legal, selected, pending, point);
  if (next.turn) {
    play(next.turn);
    return;
  }
  ({ selected, pending } = next);
  if (next.mill) announce(t('mill-remove'));
  render();
}

function cancelTurn() {
  selected = null;
  pending = null;
  render();
}

// A turn applied to the board here, to show it at once: the server's answer follows.
function apply(turn, side) {
  if (turn.from) men.delete(turn.from);
  else hand[side] -= 1;
  men.set(turn.to, side);
  if (turn.remove) men.delete(turn.remove);
  last = new Set([turn.from, turn.to].filter(Boolean));
}

// What the player has now, with perfect play from here, in words.
function standing(answer) {
  const plies = answer.distance;
  if (answer.outcome === 'draw') return t('trainer-draw-now');
  if (answer.outcome === 'win') return t('trainer-you-win-in', { plies, turns: Math.ceil(plies / 2) });
  return t(them === 'white' ? 'trainer-white-wins-in' : 'trainer-black-wins-in', { plies });
}

async function play(turn) {
  selected = null;
  pending = null;
  const before = { men: new Map(men), hand: { ...hand }, last };
  apply(turn, me);
  busy = true;
  say(t('trainer-thinking'));
  render();
  let answer;
  try {
    const response = await fetch(`/api/trainer/${data.variant}/turn`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ position, turn: turn.turn }),
    });
    answer = await response.json();
    if (!response.ok) throw new Error(answer.message || t('server-answered', { status: response.status }));
  } catch (e) {
    // Nothing was played: the turn is taken back, to be played again.
    ({ men, hand, last } = before);
    busy = false;
    say(t('trainer-not-played', { why: e.message }));
    render();
    return;
  }
  busy = false;
  if (answer.reply) apply(answer.reply, them);
  men = menAt(answer.then.men);
  hand = { ...answer.then.hand };
  legal = answer.then.legal;
  position = answer.then.position;
  const reply = answer.reply ? ` ${describe(answer.reply, them)}.` : '';
  let slip = '';
  if (answer.slipped) {
    slip = answer.outcome === 'draw'
      ? t('trainer-slip-draw', { turn: turn.turn })
      : t('trainer-slip-loss', { turn: turn.turn, side: them });
    slip += ' ';
    expected = answer.outcome;
    $('verdict').className = 'verdict wrong';
  } else {
    $('verdict').className = 'verdict';
  }
  if (answer.over) {
    over = true;
    legal = [];
    $('type-turn').hidden = true;
    $('distance').textContent = '';
    if (answer.over === me) {
      $('verdict').className = 'verdict solved';
      say(slip + t(expected === 'win' ? 'trainer-won' : 'trainer-won-back'));
    } else {
      say(`${slip}${reply} ${t('trainer-over', { result: answer.over })}`);
    }
    $('again').focus();
  } else {
    $('distance').textContent = standing(answer);
    say(`${slip}${turn.turn}: ${answer.value}.${reply} ${t('your-turn-now')}`);
  }
  render();
}

function say(text) {
  $('verdict').textContent = text;
}

function announce(text) {
  $('announce').textContent = text;
}

$('cancel-remove').addEventListener('click', cancelTurn);

$('type-turn').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = $('typed');
  const text = input.value.trim().toLowerCase();
  if (!text || busy || over) return;
  const turn = legal.find((t) => t.turn === text);
  if (!turn) {
    say(t('illegal-turn', { turn: text }));
    return;
  }
  input.value = '';
  play(turn);
});

document.addEventListener('keydown', (ev) => {
  if (ev.key === 'Escape' && (selected || pending)) cancelTurn();
});

function render() {
  const shownMen = new Map(men);
  const removable = new Set();
  if (pending) {
    for (const t of legal) if (sameMove(t, pending) && t.remove) removable.add(t.remove);
    if (pending.from) shownMen.delete(pending.from);
    shownMen.set(pending.to, me);
  }
  $('removing').hidden = !pending;
  board.show(shownMen, {
    targets: busy || over ? new Set() : targetsOf(legal, selected, pending),
    selected: new Set(selected ? [selected] : pending ? [pending.to] : []),
    removable,
    last,
    mills: new Set(),
  });
  const hands = ['white', 'black'].filter((s) => hand[s] > 0).map((side) => t('in-hand', { side, count: hand[side] }));
  $('hands').textContent = hands.join(' · ');
  // What the page stands at, for scripts and tests: the position to play, and whether it is over.
  $('trainer').dataset.position = position;
  $('trainer').dataset.state = over ? 'over' : busy ? 'busy' : 'ready';
}

render();
