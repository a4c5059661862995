// The endgame trainer's page: a won endgame on the board, played out against the table's best
// defence (POST /api/trainer/{variant}/turn with the position the page stands at). The board,
// the turn being chosen and the typed turns are static/position-play.js's, as on the puzzle page.
// After each turn the page says how many plies are left with perfect play, and plainly when a
// turn let the win slip.

import { t } from './i18n.js';
import { PositionPlay } from './position-play.js';
import { describe } from './turn-words.js';

const $ = (sel) => document.getElementById(sel);
const data = JSON.parse($('trainer-data').textContent);
const me = data.start.to_move;
const them = me === 'white' ? 'black' : 'white';
let expected = 'win'; // what the player still has with perfect play: 'win', 'draw' or 'loss'

const p = new PositionPlay({
  root: $('trainer'),
  boardData: data.board,
  start: data.start,
  me,
  onTurn: play,
});

// What the player has now, with perfect play from here, in words.
function standing(answer) {
  const plies = answer.distance;
  if (answer.outcome === 'draw') return t('trainer-draw-now');
  if (answer.outcome === 'win') return t('trainer-you-win-in', { plies, turns: Math.ceil(plies / 2) });
  return t(them === 'white' ? 'trainer-white-wins-in' : 'trainer-black-wins-in', { plies });
}

async function play(turn) {
  const before = p.view();
  p.apply(turn, me);
  p.busy = true;
  p.say(t('trainer-thinking'));
  p.render();
  let answer;
  try {
    const response = await fetch(`/api/trainer/${data.variant}/turn`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ position: p.position, turn: turn.turn }),
    });
    answer = await response.json();
    if (!response.ok) throw new Error(answer.message || t('server-answered', { status: response.status }));
  } catch (e) {
    // Nothing was played: the turn is taken back, to be played again.
    p.show(before);
    p.busy = false;
    p.say(t('trainer-not-played', { why: e.message }));
    p.render();
    return;
  }
  p.busy = false;
  if (answer.reply) p.apply(answer.reply, them);
  p.stand(answer.then);
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
    p.over = true;
    p.legal = [];
    $('type-turn').hidden = true;
    $('distance').textContent = '';
    if (answer.over === me) {
      $('verdict').className = 'verdict solved';
      p.say(slip + t(expected === 'win' ? 'trainer-won' : 'trainer-won-back'));
    } else {
      p.say(`${slip}${reply} ${t('trainer-over', { result: answer.over })}`);
    }
    $('again').focus();
  } else {
    $('distance').textContent = standing(answer);
    p.say(`${slip}${turn.turn}: ${answer.value}.${reply} ${t('your-turn-now')}`);
  }
  p.render();
}

p.render();
