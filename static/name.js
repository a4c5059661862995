// The player's name on this page: the one the browser remembers (localStorage, never required,
// changeable), the form that sets it for this game's seat, and how any name is shown: as text,
// isolated with <bdi> so that a right-to-left name cannot reorder the line around it. The server
// checks every name (docs/protocol.md, "Names"); a refused one is said under the form.

import { calledOff } from './state.js';
import { t } from './i18n.js';

const KEY = 'merels.name';

// The name this browser remembers, or ''.
export function rememberedName() {
  try {
    return localStorage.getItem(KEY) || '';
  } catch {
    return '';
  }
}

// A name as shown everywhere: text in a <bdi>, never markup.
export function nameNode(name) {
  const bdi = document.createElement('bdi');
  bdi.className = 'player-name';
  bdi.textContent = name;
  return bdi;
}

// The form beside the board that names the player's seat. `send` sends a message on the socket.
export class NameForm {
  constructor(send) {
    this.send = send;
    this.asked = null; // the name sent and not yet seen on the seat
    this.applied = false; // the remembered name was offered on this connection
    this.form = document.getElementById('name-form');
    this.input = document.getElementById('name-input');
    this.note = document.getElementById('name-note');
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.ask(this.input.value);
    });
  }

  ask(name) {
    this.asked = name.trim();
    this.say('');
    if (this.asked) this.send({ type: 'name', name: this.asked });
  }

  // A new connection: the remembered name is offered again once the state is in.
  hello(seat) {
    this.seat = seat;
    this.applied = false;
    this.form.hidden = !seat;
  }

  // The game as it stands: a name asked for that is now on the seat is remembered; a seat
  // without the remembered name gets it, once per connection.
  state(state) {
    if (!this.seat) return;
    // Nobody played a game called off before it began: there is nothing to name.
    this.form.hidden = calledOff(state);
    if (this.form.hidden) return;
    const mine = state.seats[this.seat].name || '';
    if (this.asked !== null && this.asked.replace(/ +/g, ' ').normalize('NFC') === mine) {
      try {
        localStorage.setItem(KEY, mine);
      } catch {
        // A browser that keeps nothing still plays under the name in this game.
      }
      this.asked = null;
      this.say(t('name-saved'));
    }
    if (document.activeElement !== this.input && this.asked === null) this.input.value = mine;
    const remembered = rememberedName();
    if (!this.applied && remembered && remembered !== mine) this.send({ type: 'name', name: remembered });
    this.applied = true;
  }

  // A refusal of the name asked for: said under the form. True if it was the name's.
  error(msg) {
    if (msg.code !== 'bad_name') return false;
    this.asked = null;
    this.say(t('name-not-saved', { why: msg.message }));
    return true;
  }

  say(text) {
    this.note.textContent = text;
    this.note.hidden = !text;
  }
}
