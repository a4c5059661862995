// The puzzle page: the puzzle's start on the board, played as a game is (click or tap, keys on
// the board, or a typed turn), each turn judged by the server (POST /api/puzzles/{id}/attempt).
// As on the game page the server owns the rules: what may be clicked comes from the legal turns
// it sends, in their parts, and nothing here parses notation. A right turn brings the computer's
// answer; a wrong one its exact value and the right turn; the streak is this browser's.

import { Board, menAt } from './board.js';
import { t } from './i18n.js';
import { press, sameMove, targets as targetsOf } from './picking.js';
import { describe } from './turn-words.js';

const $ = (sel) => document.getElementById(sel);
const data = JSON.parse($('puzzle-data').textContent);
const me = data.to_move;
const them = me === 'white' ? 'black' : 'white';
const streakKey = 'merels.puzzles.streak';

let men = menAt(data.men);
let hand = { ...data.hand };
let legal = data.legal;
let position = data.position; // the position string the solver plays from now
let last = new Set();
let selected = null; // a man chosen to move
let pending = null; // a move that closes a mill ({from, to}), waiting for the man to remove
let busy = false; // a turn is with the server
let over = false;
const played = []; // the solver's turns so far, in notation
let before = null; // the board before the last turn: {men, hand}, to show the right one on
let shown = null; // after a wrong turn: 'wrong' or 'right', what the board shows
const views = {}; // after a wrong turn: the board with each ({men, hand, last})

const board = new Board($('board'), data.board, activate, me === 'black');

function targets() {
  if (busy || over) return new Set();
  return targetsOf(legal, selected, pending);
}

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

async function play(turn) {
  selected = null;
  pending = null;
  before = { men: new Map(men), hand: { ...hand } };
  apply(turn, me);
  played.push(turn.turn);
  busy = true;
  say(t('puzzle-checking'));
  render();
  let answer;
  try {
    const response = await fetch(`/api/puzzles/${data.id}/attempt`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ turns: played }),
    });
    answer = await response.json();
    if (!response.ok) throw new Error(answer.message || t('server-answered', { status: response.status }));
  } catch (e) {
    // Nothing was judged: the turn is taken back, to be played again.
    played.pop();
    men = before.men;
    hand = before.hand;
    last = new Set();
    busy = false;
    say(t('puzzle-not-judged', { why: e.message }));
    render();
    return;
  }
  busy = false;
  if (answer.result === 'continue') {
    apply(answer.reply, them);
    men = menAt(answer.then.men);
    hand = { ...answer.then.hand };
    legal = answer.then.legal;
    position = answer.then.position;
    say(t('puzzle-right', { reply: describe(answer.reply, them), count: data.solver_turns - played.length }));
  } else {
    finish(answer, turn);
  }
  render();
}

function outcomeWords(outcome) {
  if (outcome === 'loss') return t('puzzle-loses', { side: them });
  if (outcome === 'draw') return t('puzzle-lets-draw', { side: them });
  return t('puzzle-wins');
}

function finish(answer, turn) {
  over = true;
  legal = [];
  let streak = Number(localStorage.getItem(streakKey) || 0);
  if (answer.result === 'solved') {
    streak += 1;
    say(t('puzzle-solved', { turn: turn.turn, goal: data.goal }));
    $('verdict').className = 'verdict solved';
  } else {
    streak = 0;
    const w = answer.wrong;
    say(`${w.turn}: ${outcomeWords(w.outcome)} (${w.value}). ${t('puzzle-right-turn-was', { turn: w.right.turn, value: w.right_value })}`);
    $('verdict').className = 'verdict wrong';
    $('show-right').hidden = false;
    shown = 'wrong';
    views.wrong = { men: new Map(men), hand: { ...hand }, last };
    men = new Map(before.men);
    hand = { ...before.hand };
    apply(w.right, me);
    views.right = { men: new Map(men), hand: { ...hand }, last };
    ({ men, hand, last } = views.wrong);
    men = new Map(men);
  }
  try {
    localStorage.setItem(streakKey, String(streak));
  } catch {
    // Private windows may refuse storage: the streak lasts for this page.
  }
  showStreak(streak);
  $('line').textContent = t('puzzle-line', { line: answer.line });
  $('line').hidden = false;
  $('your-rating').textContent = answer.rating;
  const change = answer.rating_change;
  $('rating-change').textContent = `(${change >= 0 ? '+' : ''}${change})`;
  $('type-turn').hidden = true;
  $('next').focus();
}

// After a wrong turn: the board shows the turn played or, on asking, the right one instead.
$('show-right').addEventListener('click', () => {
  const next = shown === 'wrong' ? 'right' : 'wrong';
  ({ men, hand, last } = views[next]);
  men = new Map(men);
  shown = next;
  $('show-right').textContent = t(next === 'wrong' ? 'puzzle-show-right' : 'puzzle-show-played');
  render();
});

function showStreak(streak) {
  $('streak').textContent = streak > 0 ? t('puzzle-streak', { count: streak }) : '';
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
    targets: targets(),
    selected: new Set(selected ? [selected] : pending ? [pending.to] : []),
    removable,
    last,
    mills: new Set(),
  });
  const hands = ['white', 'black'].filter((s) => hand[s] > 0).map((s) => t('in-hand', { side: s, count: hand[s] }));
  $('hands').textContent = hands.join(' · ');
  $('status').hidden = true;
  // What the page stands at, for scripts and tests: the position to play, and whether it is over.
  $('puzzle').dataset.position = position;
  $('puzzle').dataset.state = over ? 'over' : busy ? 'busy' : 'ready';
}

showStreak(Number(localStorage.getItem(streakKey) || 0));
render();
