// Sounds, made on the spot (no files): a turn, a mill, the end, the opponent's arrival. The
// mute switch is remembered. A browser lets a page sound only once it has been used (a click, a
// key): the sound is readied at the first use, so that an arrival heard later, with the page in
// a background tab, is heard. The page's root says what it played last (`data-sound`) and
// whether the browser let it be heard (`data-audio`: `running`, or `suspended` before any use),
// for whoever inspects the page.

const TONES = { turn: [660], mill: [660, 880], end: [880, 660, 440], arrival: [523, 659, 784] };

export class Sounds {
  // root: the element whose data attributes say what was played; mute: the mute checkbox.
  constructor(root, mute) {
    this.root = root;
    this.mute = mute;
    this.audio = null;
    mute.checked = localStorage.getItem('merels.mute') === '1';
    mute.addEventListener('change', () => localStorage.setItem('merels.mute', mute.checked ? '1' : '0'));
    const ready = () => {
      this.context();
      for (const kind of ['pointerdown', 'keydown']) removeEventListener(kind, ready, true);
    };
    for (const kind of ['pointerdown', 'keydown']) addEventListener(kind, ready, true);
  }

  // The page's audio, made (or woken) now; null where the browser has none.
  context() {
    try {
      this.audio = this.audio || new AudioContext();
      if (this.audio.state === 'suspended') this.audio.resume().catch(() => {});
    } catch {
      this.audio = null;
    }
    return this.audio;
  }

  play(kind) {
    if (this.mute.checked) return;
    const audio = this.context();
    this.root.dataset.sound = kind;
    this.root.dataset.audio = audio ? audio.state : 'none';
    if (!audio) return; // no sound in this browser: the game goes on without
    TONES[kind].forEach((hz, i) => {
      const at = audio.currentTime + i * 0.12;
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = hz;
      gain.gain.setValueAtTime(0.15, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + 0.1);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + 0.11);
    });
  }
}
