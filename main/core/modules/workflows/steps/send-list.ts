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
    return outsideWindow() ?? send(listFields(list));
  },
  // A list of this workspace and environment.
  checkScope(s, at, { refuse, listExists }) {
    const listId: unknown = s.listId;
    if (typeof listId !== 'string' || !listExists(listId)) {
      refuse(
        `${at}.listId`,
        `no interactive list ${String(listId)} in this workspace and environment`,
      );
    }
  },
};
