/** What a file card says about a file: its size and its kind, in words an agent reads. */

const UNITS = ['KB', 'MB', 'GB'] as const;

/** "712 bytes", "2.3 KB", "14 MB". */
export function formatFileSize(bytes: number | null): string | null {
  if (bytes === null || !Number.isFinite(bytes) || bytes < 0) return null;
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1).replace(/\.0$/, '') : Math.round(value)} ${UNITS[unit]}`;
}

const BY_MIME: Readonly<Record<string, string>> = {
  'application/pdf': 'PDF',
  'text/plain': 'TXT',
  'application/msword': 'DOC',
  'application/vnd.ms-excel': 'XLS',
  'application/vnd.ms-powerpoint': 'PPT',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'DOCX',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'XLSX',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'PPTX',
  'application/zip': 'ZIP',
};

/** A short label for a file's kind ("PDF", "XLSX"), from its type, else its name's extension. */
export function fileTypeLabel(mimeType: string | null, fileName: string | null): string {
  const known = mimeType ? BY_MIME[mimeType] : undefined;
  if (known) return known;
  const extension = fileName?.match(/\.([a-z0-9]{1,5})$/i)?.[1];
  if (extension) return extension.toUpperCase();
  const subtype = mimeType?.split('/')[1];
  return subtype && subtype !== 'octet-stream' ? subtype.slice(0, 5).toUpperCase() : 'FILE';
}
