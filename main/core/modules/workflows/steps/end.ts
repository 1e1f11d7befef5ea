import type { StepExecutor } from './step-executor.ts';

export const end: StepExecutor<'end'> = {
  type: 'end',
  execute: () => ({ kind: 'end', output: null }),
};
