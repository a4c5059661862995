// "Share image": the game's GIF to the system share sheet, where the browser has one that takes
// files; elsewhere the button stays hidden and "Download GIF", the link beside it, remains.
// "Embed": the markup that shows the game in another site's page, to copy.

import { copyOnClick } from './copy.js';

const embed = document.getElementById('embed-copy');
if (embed) copyOnClick(embed, document.getElementById('embed-code'));

for (const button of document.querySelectorAll('[data-share-image]')) {
  const probe = new File([''], button.dataset.shareName, { type: 'image/gif' });
  if (!navigator.canShare || !navigator.canShare({ files: [probe] })) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    const res = await fetch(button.dataset.shareImage);
    if (!res.ok) return;
    const file = new File([await res.blob()], button.dataset.shareName, { type: 'image/gif' });
    try {
      await navigator.share({ files: [file], title: document.title });
    } catch {
      // Dismissed, or the share sheet refused: nothing to undo.
    }
  });
}
