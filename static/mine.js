// "My games": this browser's games from GET /api/my-games (by its anonymous browser cookie),
// in progress first (whose turn it is, how long is left), then the recently finished. The
// server says what is true; this page only words it.

import { myGames } from './my-turns.js';
import { t } from './i18n.js';

const $ = (sel) => document.getElementById(sel);

// A duration in the largest unit that says it: days, hours, minutes, seconds.
function left(ms) {
  const s = Math.floor(ms / 1000);
  if (s >= 86400) return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min`;
  return `${s} s`;
}

function words(game) {
  const name = game.against_computer ? t('mine-against-computer', { game: game.title }) : game.title;
  const you = t('mine-you-play', { side: game.seat });
  if (game.status === 'waiting') return `${name}, ${you}: ${t('mine-waiting')}`;
  if (game.status === 'finished') {
    const won = { '1-0': 'white', '0-1': 'black' }[game.result];
    const end = won ? (won === game.seat ? 'mine-won' : 'mine-lost') : game.result === '1/2-1/2' ? 'mine-draw' : 'mine-ended';
    return `${name}, ${you}: ${t(end)}`;
  }
  const turn = t(game.your_turn ? 'mine-your-turn' : 'mine-their-turn');
  const time = game.left_ms === null || game.left_ms === undefined ? '' : `, ${t('mine-left', { time: left(game.left_ms) })}`;
  return `${name}, ${you}: ${turn}${time}`;
}

function fill(list, none, games) {
  list.replaceChildren(
    ...games.map((g) => {
      const li = document.createElement('li');
      li.dataset.game = g.id;
      li.classList.toggle('your-turn', g.your_turn);
      const a = document.createElement('a');
      a.href = `/g/${g.id}`;
      a.textContent = words(g);
      li.append(a);
      return li;
    }),
  );
  none.hidden = games.length > 0;
}

myGames()
  .then((body) => {
    fill($('mine-open'), $('mine-none'), body.games.filter((g) => g.status !== 'finished'));
    fill($('mine-done'), $('mine-done-none'), body.games.filter((g) => g.status === 'finished'));
  })
  .catch((e) => {
    $('mine-error').textContent = t('mine-error', { why: e.message });
    $('mine-error').hidden = false;
  });
