// A "Copy" button: puts a field's text on the clipboard (or, where the browser refuses, selects
// it and copies the old way), and says "Copied" for a moment.

import { t } from './i18n.js';

export function copyOnClick(button, field) {
  const label = button.textContent;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
    } catch {
      field.select();
      document.execCommand('copy');
    }
    button.textContent = t('copied');
    setTimeout(() => {
      button.textContent = label;
    }, 1500);
  });
}
