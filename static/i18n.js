// The client's words, in the page's language. The server puts that language's messages in the
// page (`#messages`, made from locales/<lang>/client.ftl); `t(key, args)` fills in each
// `{$name}` (numbers as the language writes them) and, for a message that chooses by a number
// or a word, takes the variant the language's own plural rules (Intl.PluralRules) or the word
// choose. Keys are always written out whole, so that a test can find every one in use.

const lang = document.documentElement.lang || 'en';
const source = document.getElementById('messages');
const messages = source ? JSON.parse(source.textContent) : {};
const plurals = new Intl.PluralRules(lang);
const numbers = new Intl.NumberFormat(lang);

// The message `key` with `args`; the key itself should the page lack it (a test keeps that from
// happening).
export function t(key, args = {}) {
  let pattern = messages[key];
  if (pattern === undefined) return key;
  if (typeof pattern === 'object') {
    const by = args[pattern.$];
    const exact = pattern[String(by)];
    const plural = typeof by === 'number' ? pattern[plurals.select(by)] : undefined;
    pattern = exact ?? plural ?? pattern[pattern['*']];
  }
  return pattern.replace(/\{\$([A-Za-z0-9_-]+)\}/g, (_, name) => {
    const value = args[name];
    return typeof value === 'number' ? numbers.format(value) : String(value ?? '');
  });
}
