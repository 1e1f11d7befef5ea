import type { StepExecutor } from './step-executor.ts';

export const sendText: StepExecutor<'send_text'> = {
  type: 'send_text',
  execute(s, { render, send, outsideWindow }) {
    const text = render(s.text);
    if (text.trim() === '') return { kind: 'fail', error: 'the text renders empty' };
    return (
      outsideWindow() ??
      send({
        type: 'text',
        template_name: null,
        text,
        variables: null,
        category: 'SERVICE',
      })
    );
  },
};
