import type { FakeGraph } from './fake-graph.ts';
import type { TestCore } from './helpers.ts';

/** `PUT /api/channel`'s body connecting the live account to a fake Graph API. */
export const connectionTo = (g: FakeGraph) => ({
  provider: 'cloud_api',
  phoneNumberId: g.phoneNumberId,
  wabaId: g.wabaId,
  accessToken: g.accessToken,
  appSecret: g.appSecret,
  graphBaseUrl: g.baseUrl,
});

/** An approved live template `order_update` ("Hi {{1}}, order {{2}} shipped") known to both. */
export async function orderUpdateTemplate(t: TestCore, key: string, g: FakeGraph) {
  const tpl = await t.request('POST', '/api/templates', {
    key,
    body: {
      name: 'order_update',
      category: 'UTILITY',
      language: 'en',
      components: [{ type: 'BODY', text: 'Hi {{1}}, order {{2}} shipped' }],
    },
  });
  t.core.services.templates.decide(
    { workspaceId: t.workspaceId, environment: 'live' },
    tpl.body.template.id,
    'approve',
  );
  g.addTemplate({
    name: 'order_update',
    language: 'en',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [
      {
        type: 'BODY',
        text: 'Hi {{1}}, order {{2}} shipped',
        example: { body_text: [['Ann', '1']] },
      },
    ],
  });
}
