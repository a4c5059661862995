// The analysis page: steps through a finished game on the board, with what the computer makes of
// each position: its value for the side to move, the best turn (drawn on the board), and what
// the turn played was worth. Everything comes in the page (the same analysis as its table);
// nothing here judges or parses a turn.

import { Board, menAt, moved } from './board.js';
import { t } from './i18n.js';
import './pictures.js';

const $ = (sel) => document.getElementById(sel);
const data = JSON.parse($('analysis-data').textContent);
const rows = [...document.querySelectorAll('#analysis tbody tr')];
const board = new Board($('board'), data.board, () => {});
let view = 0; // the position after this many turns

function render() {
  const n = data.turns.length;
  const before = data.turns[view - 1]; // the turn that led here
  const next = data.turns[view]; // the turn played from here, with the position's judgement
  const best = next && next.best;
  board.show(menAt(data.boards[view]), {
    targets: new Set(),
    selected: new Set(),
    removable: new Set(),
    last: before ? moved(data.boards[view - 1], data.boards[view], before.side) : new Set(),
    mill: new Set(),
    best: new Set(best ? [best.from, best.to].filter(Boolean) : []),
    'best-remove': new Set(best && best.remove ? [best.remove] : []),
  });
  $('replay-at').textContent = `${view} / ${n}`;
  const words = [];
  if (before) {
    words.push(`${view}. ${t('analysis-played', { side: before.side, turn: before.turn })}`);
    if (before.played) words.push(t('analysis-worth', { side: before.side, value: before.played }));
    if (before.mark) words.push(t('analysis-mark', { mark: before.mark }));
  } else {
    words.push(t('replay-start-short'));
  }
  let text = `${words.join(', ')}.`;
  if (next && next.value) text += ` ${t('analysis-next', { side: next.side, value: next.value, best: best.turn })}`;
  else if (next) text += ` ${t('analysis-next-unreached', { side: next.side })}`;
  else text += ` ${t('analysis-over')}`;
  $('judgement').textContent = text;
  rows.forEach((row, i) => row.classList.toggle('current', i === view - 1));
}

function step(where) {
  const n = data.turns.length;
  const to = { first: 0, prev: view - 1, next: view + 1, last: n }[where] ?? where;
  view = Math.max(0, Math.min(n, to));
  render();
}

for (const button of document.querySelectorAll('#replay button')) {
  button.addEventListener('click', () => step(button.dataset.step));
}
rows.forEach((row, i) => {
  row.tabIndex = 0;
  row.addEventListener('click', () => step(i + 1));
  row.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      step(i + 1);
    }
  });
});
document.addEventListener('keydown', (ev) => {
  const keys = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' };
  if (keys[ev.key]) {
    ev.preventDefault();
    step(keys[ev.key]);
  }
});

document.querySelector('#analysis-view .board-wrap').hidden = false;
$('replay').hidden = false;
render();
