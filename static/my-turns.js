// "Your turn in N games": a line of its own on any page that has an element `#my-turns` (the
// home page), filled from GET /api/my-games; and that fetch, for the My games page too.

import { t } from './i18n.js';

// This browser's games, as the server lists them.
export async function myGames() {
  const res = await fetch('/api/my-games', { credentials: 'same-origin' });
  const body = await res.json();
  if (!res.ok) throw new Error(body.message);
  return body;
}

const line = document.getElementById('my-turns');
if (line) {
  myGames()
    .then(({ your_turn: n }) => {
      if (n === 0) return;
      const a = document.createElement('a');
      a.href = '/my-games';
      a.textContent = t('your-turn-in-games', { count: n });
      line.replaceChildren(a);
      line.hidden = false;
    })
    .catch(() => {});
}
