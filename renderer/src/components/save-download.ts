import type { Download } from '../api/client.ts';

/**
 * Hands a file the core made to the browser's (or the desktop's) download: an object URL and a
 * link with `download`, since a plain link could not carry the desktop window's session header.
 */
export function saveDownload({ blob, filename }: Download): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the URL over; it can go once this task is done.
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
}
