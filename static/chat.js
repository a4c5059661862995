// The game's chats on the page: the players' (for the two seats) and the spectators' (for those
// who watch, and for a player who chooses to read it). Lines come from the server as it stored
// them and are shown as text, never as markup; links stay plain text. What a browser hears (the
// chat muted, the spectators shown) is remembered on this device and told to the server, which
// then sends only those lines.

import { nameNode } from './name.js';
import { t } from './i18n.js';

const KEY = 'merels.chat';
const $ = (sel) => document.getElementById(sel);

function remembered() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || '{}');
    return { mute: saved.mute === true, spectators: saved.spectators === true };
  } catch {
    return { mute: false, spectators: false };
  }
}

function remember(choice) {
  try {
    localStorage.setItem(KEY, JSON.stringify(choice));
  } catch {
    // Private windows may refuse storage: the choice lasts for this page.
  }
}

function clock(at) {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

export class Chat {
  // `send(message)` sends a protocol message on the game's socket, if it is open.
  constructor(send) {
    this.send = send;
    this.seat = null;
    this.lines = [];
    this.last = { players: 0, spectators: 0 };
    this.inFlight = null; // the text of a line sent and not yet heard back
    this.heard = { players: false, spectators: false }; // what the server says we hear
    this.awaiting = true; // a chat_history is on its way (one follows every connect and sync)
    this.againstComputer = false;
    this.calledOff = false;
    this.choice = remembered();
    $('chat-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const input = $('chat-text');
      const text = input.value.trim();
      if (!text) return;
      if (!this.send({ type: 'chat', text })) {
        this.note(t('chat-not-connected'));
        return;
      }
      this.inFlight = text;
      input.value = '';
      this.note('');
    });
    $('chat-mute').addEventListener('change', (ev) => {
      this.choice.mute = ev.target.checked;
      this.changed();
    });
    $('chat-spectators').addEventListener('change', (ev) => {
      this.choice.spectators = ev.target.checked;
      this.changed();
    });
  }

  // What this connection should hear, by its seat and the remembered choice.
  hearing() {
    if (this.seat) return { players: !this.choice.mute, spectators: this.choice.spectators };
    return { players: false, spectators: !this.choice.mute };
  }

  changed() {
    remember(this.choice);
    this.send({ type: 'chat_settings', ...this.hearing() });
    this.draw();
  }

  // A new connection: who we are here. The server starts from its own defaults; a remembered
  // choice is told to it.
  hello(seat) {
    this.seat = seat;
    const wanted = this.hearing();
    const defaults = { players: !!seat, spectators: !seat };
    if (wanted.players !== defaults.players || wanted.spectators !== defaults.spectators) {
      this.send({ type: 'chat_settings', ...wanted });
    }
    this.draw();
  }

  // Whether the other seat is the computer: a player then has no one to talk to.
  opponentIsComputer(yes) {
    if (yes === this.againstComputer) return;
    this.againstComputer = yes;
    this.draw();
  }

  // Whether the game was called off before it began: its players are offered a new game, not a
  // chat with an opponent who never played.
  neverStarted(yes) {
    if (yes === this.calledOff) return;
    this.calledOff = yes;
    this.draw();
  }

  // A `chat_history`: every line heard, replacing what was shown.
  history(msg) {
    this.awaiting = false;
    this.heard = msg.hearing;
    this.lines = msg.lines;
    this.last = { players: 0, spectators: 0 };
    for (const l of msg.lines) this.last[l.room] = Math.max(this.last[l.room], l.seq);
    this.draw();
  }

  // A `chat` line. One already shown is dropped; a gap means lines were missed, and the whole
  // game is asked for again (lines included): returns false then.
  line(l) {
    if (l.seq <= this.last[l.room]) return true;
    if (l.seq !== this.last[l.room] + 1) return false;
    this.last[l.room] = l.seq;
    this.lines.push(l);
    if (this.inFlight !== null && l.by === this.seat && l.text === this.inFlight) this.inFlight = null;
    this.draw();
    return true;
  }

  // Whether a state's counts of lines (`counts`) show lines of a chat we hear that never
  // reached us (a connection that fell behind loses its backlog): then everything is asked for
  // again. Not while a history is on its way.
  behind(counts) {
    if (this.awaiting || !counts) return false;
    return ['players', 'spectators'].some((room) => this.heard[room] && counts[room] > this.last[room]);
  }

  // A sync was sent: its history follows.
  syncing() {
    this.awaiting = true;
  }

  // An error that came while a line was in flight is the line's: said under the chat, and the
  // text given back to edit. True if it was taken.
  error(msg) {
    if (this.inFlight === null) return false;
    const input = $('chat-text');
    if (!input.value) input.value = this.inFlight;
    this.inFlight = null;
    this.note(t('chat-not-sent', { why: msg.message }));
    return true;
  }

  note(text) {
    const p = $('chat-note');
    p.textContent = text;
    p.hidden = !text;
  }

  // Who said a line: "You", or the name they went by then (as text, isolated), or their seat.
  who(l) {
    if (l.by && l.by === this.seat) return [t('chat-you')];
    const seat = t(l.by || 'spectator');
    return l.name ? [nameNode(l.name), ` (${seat})`] : [seat];
  }

  draw() {
    const section = $('chat');
    const player = !!this.seat;
    const muted = this.choice.mute;
    // A player against the computer has only the spectators' chat, if they want it.
    const talks = !(player && this.againstComputer);
    $('chat-title').textContent = t(player && talks ? 'chat-players' : 'chat-spectators-title');
    $('chat-spectators-option').hidden = !player;
    $('chat-mute-option').hidden = player && !talks;
    $('chat-mute').checked = muted;
    $('chat-spectators').checked = this.choice.spectators;
    $('chat-form').hidden = muted || !talks;
    const shown = this.lines.filter((l) => (l.room === 'players' ? player && !muted : !player ? !muted : this.choice.spectators));
    shown.sort((a, b) => a.at - b.at);
    const list = $('chat-lines');
    list.replaceChildren(
      ...shown.map((l) => {
        const li = document.createElement('li');
        li.className = l.room;
        const time = document.createElement('time');
        time.textContent = clock(l.at);
        time.dateTime = new Date(l.at).toISOString();
        const who = document.createElement('b');
        who.append(...this.who(l), ':');
        const text = document.createElement('span');
        text.textContent = ` ${l.text}`;
        li.append(time, ' ', who, text);
        return li;
      }),
    );
    list.hidden = shown.length === 0;
    list.scrollTop = list.scrollHeight;
    $('chat-muted').hidden = !(muted && talks);
    section.hidden = player && this.calledOff;
  }
}
