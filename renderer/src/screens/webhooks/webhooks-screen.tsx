import { useRoute } from '../../stores/route.ts';
import { DeliveryLog } from './delivery-log.tsx';
import { WebhookList } from './webhook-list.tsx';
import './webhooks.css';

/** `#/webhooks`: the endpoints; `#/webhooks/<id>`: one endpoint's delivery log. */
export function WebhooksScreen() {
  const subPath = useRoute((s) => s.subPath);
  return subPath ? <DeliveryLog webhookId={subPath} /> : <WebhookList />;
}
