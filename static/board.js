// Draws any Morris board as SVG from the geometry the server sends (points on a grid, lines),
// and shows a position on it. It knows nothing of the rules: what may be clicked is decided by
// the caller from the server's legal turns.

import { t } from './i18n.js';

const NS = 'http://www.w3.org/2000/svg';

// Arrow keys as steps on the screen.
const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// The points a replayed turn moved a man between: where the mover's men differ on the two
// boards around it (a man it removed is the other side's). Boards are {white: [...], black: [...]}.
export function moved(before, after, mover) {
  const a = new Set(before[mover]);
  const b = new Set(after[mover]);
  return new Set([...a, ...b].filter((p) => !(a.has(p) && b.has(p))));
}

// The men of {white: [...], black: [...]} as a Map point -> side, as `show` takes them.
export function menAt(sides) {
  const men = new Map();
  for (const who of ['white', 'black']) for (const p of sides[who]) men.set(p, who);
  return men;
}

// The distance between the two closest points of a board, in grid steps (at most one).
function closest(points) {
  let least = 1;
  for (const a of points) {
    for (const b of points) if (a !== b) least = Math.min(least, Math.hypot(a.x - b.x, a.y - b.y));
  }
  return least;
}

export class Board {
  // svg: the <svg> to draw in; geometry: {size, points: [{name, x, y}], lines: [[name...]]};
  // onActivate(name): called when a point is clicked, tapped or chosen with Enter/Space;
  // flipped: drawn from Black's side (a1 at the top right).
  constructor(svg, geometry, onActivate, flipped = false) {
    this.svg = svg;
    this.points = new Map();
    svg.replaceChildren();
    const n = geometry.size - 1;
    const pad = 0.75;
    svg.setAttribute('viewBox', `${-pad} ${-pad} ${n + 2 * pad} ${n + 2 * pad}`);
    const at = new Map(
      geometry.points.map((p) => [p.name, flipped ? [n - p.x, p.y] : [p.x, n - p.y]]),
    );
    this.at = at;
    this.roving = null; // the one playable point in the tab order; arrow keys move it
    // Rings and hit areas are sized from the two closest points, so that neighbours' never meet.
    const step = closest(geometry.points);

    el('rect', { x: -pad, y: -pad, width: n + 2 * pad, height: n + 2 * pad, rx: 0.3, class: 'wood' }, svg);
    const lines = el('g', { class: 'lines' }, svg);
    for (const line of geometry.lines) {
      const [x1, y1] = at.get(line[0]);
      const [x2, y2] = at.get(line[line.length - 1]);
      el('line', { x1, y1, x2, y2 }, lines);
    }
    const labels = el('g', { class: 'labels', 'aria-hidden': 'true' }, svg);
    for (let i = 0; i <= n; i++) {
      const [x, y] = flipped ? [n - i, i] : [i, n - i];
      el('text', { x, y: n + pad * 0.8 }, labels).textContent = String.fromCharCode(97 + i);
      el('text', { x: -pad * 0.8, y }, labels).textContent = String(i + 1);
    }
    const layer = el('g', { class: 'points' }, svg);
    for (const p of geometry.points) {
      const [x, y] = at.get(p.name);
      const g = el('g', {
        class: 'point empty',
        transform: `translate(${x} ${y})`,
        'data-point': p.name,
        tabindex: '-1',
        role: 'button',
        'aria-label': `${p.name}, empty`,
      }, layer);
      el('circle', { class: 'spot', r: 0.11 }, g);
      el('circle', { class: 'ring', r: 0.38 * step }, g);
      el('circle', { class: 'man', r: 0.3 }, g);
      el('circle', { class: 'hit', r: 0.48 * step }, g);
      const activate = (ev) => {
        ev.preventDefault();
        onActivate(p.name);
      };
      g.addEventListener('click', activate);
      g.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter' || ev.key === ' ') activate(ev);
        if (ARROWS[ev.key]) {
          ev.preventDefault();
          ev.stopPropagation();
          this.move(p.name, ARROWS[ev.key]);
        }
      });
      g.addEventListener('focus', () => {
        this.roving = p.name;
      });
      this.points.set(p.name, g);
    }
  }

  // men: Map name -> 'white' | 'black'; marks: {targets, selected, removable, last, mills} as
  // Sets of point names.
  show(men, marks) {
    const active = (name) => marks.targets.has(name) || marks.removable.has(name) || marks.selected.has(name);
    // One playable point is in the tab order (the last one focused while it stays playable);
    // arrow keys go from it to the others, so a turn takes a few keys, not a Tab per point.
    if (!this.roving || !active(this.roving)) this.roving = [...this.points.keys()].find(active) || null;
    for (const [name, g] of this.points) {
      const who = men.get(name);
      const classes = ['point', who || 'empty'];
      for (const [mark, set] of Object.entries(marks)) if (set.has(name)) classes.push(mark);
      g.setAttribute('class', classes.join(' '));
      g.setAttribute('tabindex', name === this.roving ? '0' : '-1');
      g.setAttribute('aria-disabled', active(name) ? 'false' : 'true');
      let label = `${name}, ${t(who ? 'point-man' : 'point-empty', { side: who })}`;
      if (marks.removable.has(name)) label += `, ${t('point-removable')}`;
      else if (marks.selected.has(name)) label += `, ${t('point-selected')}`;
      else if (marks.targets.has(name)) label += `, ${t('point-playable')}`;
      g.setAttribute('aria-label', label);
    }
  }

  // Moves the focus from point `from` to the nearest playable point in direction [dx, dy]
  // (screen coordinates): the nearest ahead, with a step aside counting double.
  move(from, [dx, dy]) {
    const [fx, fy] = this.at.get(from);
    let best = null;
    let bestScore = Infinity;
    for (const [name, g] of this.points) {
      if (name === from || g.getAttribute('aria-disabled') === 'true') continue;
      const [x, y] = this.at.get(name);
      const ahead = (x - fx) * dx + (y - fy) * dy;
      if (ahead <= 0) continue;
      const score = ahead + 2 * (Math.abs((x - fx) * dy) + Math.abs((y - fy) * dx));
      if (score < bestScore) {
        best = name;
        bestScore = score;
      }
    }
    if (!best) return;
    this.points.get(this.roving)?.setAttribute('tabindex', '-1');
    this.roving = best;
    const g = this.points.get(best);
    g.setAttribute('tabindex', '0');
    g.focus();
  }
}
