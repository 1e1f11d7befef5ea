import type { StepEditor } from './step-editor.ts';

export const end: StepEditor<'end'> = {
  type: 'end',
  hint: 'Ends the run here.',
  idPrefix: 'end',
  defaults: {},
  next: false,
  paths: () => [],
};
