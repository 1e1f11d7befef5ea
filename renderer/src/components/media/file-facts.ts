/** What a file card says about a file: its size and its kind, in words an agent reads. */
import { formatFileSize as sizeInWords } from '../../../../shared/media-rules.ts';

/** "712 bytes", "2.3 KB", "14 MB" (shared/media-rules.ts, the composer's words too); null when unknown. */
export const formatFileSize = (bytes: number | null): string | null =>
  bytes === null || !Number.isFinite(bytes) || bytes < 0 ? null : sizeInWords(bytes);

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
