import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MediaType } from '../../../shared/schemas/media.ts';

/**
 * The simulator's bundled sample files (written by us for Parley, CC0): what a simulated
 * customer "sends" with `POST /api/simulator/inbound {media: {type}}`. They sit beside this
 * module in the source tree and beside the bundle once built (main/scripts/build.mjs copies them).
 */
export interface Sample {
  file: string;
  mimeType: string;
  fileName: string | null;
  voice: boolean;
}

const SAMPLES: Record<MediaType, Omit<Sample, 'file'> & { name: string }> = {
  image: { name: 'photo.png', mimeType: 'image/png', fileName: null, voice: false },
  audio: { name: 'voice-note.ogg', mimeType: 'audio/ogg', fileName: null, voice: true },
  video: { name: 'video.mp4', mimeType: 'video/mp4', fileName: null, voice: false },
  document: {
    name: 'invoice.pdf',
    mimeType: 'application/pdf',
    fileName: 'invoice-17.pdf',
    voice: false,
  },
  sticker: { name: 'sticker.webp', mimeType: 'image/webp', fileName: null, voice: false },
};

/** The samples' folder, in the source tree and in the bundle alike. */
export function samplesDir(): string {
  return fileURLToPath(new URL('./simulator-samples/', import.meta.url));
}

export function sampleFor(kind: MediaType, dir = samplesDir()): Sample {
  const s = SAMPLES[kind];
  return {
    file: `${dir}${dir.endsWith('/') ? '' : '/'}${s.name}`,
    mimeType: s.mimeType,
    fileName: s.fileName,
    voice: s.voice,
  };
}

/** The sample a media record names (its `sample` column), streamed like a download. */
export const readSample = (name: string, dir = samplesDir()) => {
  if (!/^[a-z-]+\.[a-z0-9]+$/.test(name)) throw new Error(`no sample ${name}`);
  return fs.createReadStream(`${dir}${dir.endsWith('/') ? '' : '/'}${name}`);
};

export const sampleName = (kind: MediaType): string => SAMPLES[kind].name;
