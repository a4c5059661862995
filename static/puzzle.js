// The puzzle page: the puzzle's start on the board, played as a game is (click or tap, keys on
// the board, or a typed turn), each turn judged by the server (POST /api/puzzles/{id}/attempt).
// The board, the turn being chosen and the typed turns are static/position-play.js's, as on the
// trainer page; nothing here parses notation. A right turn brings the computer's answer; a wrong
// one its exact value and the right turn; the streak is this browser's.

import { t } from './i18n.js';
import { PositionPlay } from './position-play.js';
import { describe } from './turn-words.js';

const $ = (sel) => document.getElementById(sel);
const data = JSON.parse($('puzzle-data').textContent);
const me = data.to_move;
const them = me === 'white' ? 'black' : 'white';
const streakKey = 'merels.puzzles.streak';

const played = []; // the solver's turns so far, in notation
let before = null; // the board before the last turn, to show the right one on
let shown = null; // after a wrong turn: 'wrong' or 'right', what the board shows
const views = {}; // after a wrong turn: the board with each

const p = new PositionPlay({
  root: $('puzzle'),
  boardData: data.board,
  start: data,
  me,
  onTurn: play,
});

function render() {
  p.render();
  $('status').hidden = true;
}

async function play(turn) {
  before = p.view();
  p.apply(turn, me);
  played.push(turn.turn);
  p.busy = true;
  p.say(t('puzzle-checking'));
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
    p.show({ ...before, last: new Set() });
    p.busy = false;
    p.say(t('puzzle-not-judged', { why: e.message }));
    render();
    return;
  }
  p.busy = false;
  if (answer.result === 'continue') {
    p.apply(answer.reply, them);
    p.stand(answer.then);
    p.say(t('puzzle-right', { reply: describe(answer.reply, them), count: data.solver_turns - played.length }));
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
  p.over = true;
  p.legal = [];
  let streak = Number(localStorage.getItem(streakKey) || 0);
  if (answer.result === 'solved') {
    streak += 1;
    p.say(t('puzzle-solved', { turn: turn.turn, goal: data.goal }));
    $('verdict').className = 'verdict solved';
  } else {
    streak = 0;
    const w = answer.wrong;
    p.say(`${w.turn}: ${outcomeWords(w.outcome)} (${w.value}). ${t('puzzle-right-turn-was', { turn: w.right.turn, value: w.right_value })}`);
    $('verdict').className = 'verdict wrong';
    $('show-right').hidden = false;
    shown = 'wrong';
    views.wrong = p.view();
    p.show(before);
    p.apply(w.right, me);
    views.right = p.view();
    p.show(views.wrong);
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
  p.show(views[next]);
  shown = next;
  $('show-right').textContent = t(next === 'wrong' ? 'puzzle-show-right' : 'puzzle-show-played');
  render();
});

function showStreak(streak) {
  $('streak').textContent = streak > 0 ? t('puzzle-streak', { count: streak }) : '';
}

showStreak(Number(localStorage.getItem(streakKey) || 0));
render();
