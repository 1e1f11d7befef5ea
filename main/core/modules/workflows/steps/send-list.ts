import { listFields } from '../../messages/service.ts';
import type { StepExecutor } from './step-executor.ts';
import { failureOf } from './step-executor.ts';

export const sendList: StepExecutor<'send_list'> = {
  type: 'send_list',
  execute(s, { scope, send, outsideWindow, lists, messages }) {
    let list;
    try {
      list = lists.find(scope, s.listId, 'listId');
      messages.listFitsChannel(scope, list);
    } catch (e) {
      return failureOf(e);
    }
    const sent = outsideWindow() ?? send(listFields(list));
    if (sent.kind !== 'next') return sent;
    // What the run history shows: the list by name, and the choices it offered.
    const rows = list.sections.flatMap((sec) =>
      sec.rows.map((r) => ({ id: r.id, title: r.title })),
    );
    return {
      ...sent,
      output: { ...(sent.output as object), listId: list.id, listName: list.name, rows },
    };
  },
  // A list of this workspace and environment.
  checkScope(s, at, { refuse, listExists }) {
    const listId: unknown = s.listId;
    if (typeof listId !== 'string' || !listExists(listId)) {
      refuse(
        `${at}.listId`,
        `Choose one of this workspace's lists ("${String(listId)}" is not one in this environment)`,
      );
    }
  },
};
