// A position played on the board against the server: the part the puzzle and trainer pages
// share. It holds the men and hands shown, the turn being chosen (a man picked to move, a mill
// waiting for its removal), the typed-turn form and Escape, and draws the board; each page sends
// the chosen turn to its own API and says what the answer means. As on the game page the server
// owns the rules: what may be clicked comes from the legal turns it sends (static/picking.js).

import { Board, menAt } from './board.js';
import { t } from './i18n.js';
import { press, sameMove, targets as targetsOf } from './picking.js';

const $ = (sel) => document.getElementById(sel);

export class PositionPlay {
  // `root`: the page's main element, whose data-position and data-state tell scripts and tests
  // where the page stands; `boardData`: the board's geometry; `start`: {men, hand, legal,
  // position}; `me`: the side the player plays; `onTurn(turn)`: called with each turn chosen.
  constructor({ root, boardData, start, me, onTurn }) {
    this.root = root;
    this.me = me;
    this.onTurn = onTurn;
    this.men = menAt(start.men);
    this.hand = { ...start.hand };
    this.legal = start.legal;
    this.position = start.position; // the position string the player is to move in
    this.last = new Set();
    this.selected = null; // a man chosen to move
    this.pending = null; // a move that closes a mill ({from, to}), waiting for the removal
    this.busy = false; // a turn is with the server
    this.over = false;
    this.board = new Board($('board'), boardData, (point) => this.activate(point), me === 'black');
    $('cancel-remove').addEventListener('click', () => this.cancel());
    $('type-turn').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const input = $('typed');
      const text = input.value.trim().toLowerCase();
      if (!text || this.busy || this.over) return;
      const turn = this.legal.find((l) => l.turn === text);
      if (!turn) {
        this.say(t('illegal-turn', { turn: text }));
        return;
      }
      input.value = '';
      this.choose(turn);
    });
    document.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape' && (this.selected || this.pending)) this.cancel();
    });
  }

  activate(point) {
    if (this.busy || this.over) return;
    const next = press(this.legal, this.selected, this.pending, point);
    if (next.turn) {
      this.choose(next.turn);
      return;
    }
    ({ selected: this.selected, pending: this.pending } = next);
    if (next.mill) this.announce(t('mill-remove'));
    this.render();
  }

  choose(turn) {
    this.selected = null;
    this.pending = null;
    this.onTurn(turn);
  }

  cancel() {
    this.selected = null;
    this.pending = null;
    this.render();
  }

  // A turn applied to the board here, to show it at once: the server's answer follows.
  apply(turn, side) {
    if (turn.from) this.men.delete(turn.from);
    else this.hand[side] -= 1;
    this.men.set(turn.to, side);
    if (turn.remove) this.men.delete(turn.remove);
    this.last = new Set([turn.from, turn.to].filter(Boolean));
  }

  // What the board shows, to be shown again later: {men, hand, last}.
  view() {
    return { men: new Map(this.men), hand: { ...this.hand }, last: this.last };
  }

  show(view) {
    this.men = new Map(view.men);
    this.hand = { ...view.hand };
    this.last = view.last;
  }

  // The position the server says the player now stands at: {men, hand, legal, position}.
  stand(then) {
    this.men = menAt(then.men);
    this.hand = { ...then.hand };
    this.legal = then.legal;
    this.position = then.position;
  }

  say(text) {
    $('verdict').textContent = text;
  }

  announce(text) {
    $('announce').textContent = text;
  }

  render() {
    const shownMen = new Map(this.men);
    const removable = new Set();
    const pending = this.pending;
    if (pending) {
      for (const l of this.legal) if (sameMove(l, pending) && l.remove) removable.add(l.remove);
      if (pending.from) shownMen.delete(pending.from);
      shownMen.set(pending.to, this.me);
    }
    $('removing').hidden = !pending;
    const still = this.busy || this.over;
    this.board.show(shownMen, {
      targets: still ? new Set() : targetsOf(this.legal, this.selected, pending),
      selected: new Set(this.selected ? [this.selected] : pending ? [pending.to] : []),
      removable,
      last: this.last,
      mills: new Set(),
    });
    const sides = ['white', 'black'].filter((side) => this.hand[side] > 0);
    const hands = sides.map((side) => t('in-hand', { side, count: this.hand[side] }));
    $('hands').textContent = hands.join(' · ');
    this.root.dataset.position = this.position;
    this.root.dataset.state = this.over ? 'over' : this.busy ? 'busy' : 'ready';
  }
}
