import type { ListContent } from '../../../shared/list-rules.ts';
import { useSession } from '../stores/session.ts';
import { WhatsAppPreview } from './whatsapp-preview.tsx';

/** An interactive list as the customer's phone shows it: tap its button to see the rows. */
export function ListPreview({ list, testId }: { list: ListContent; testId: string }) {
  const businessName = useSession((s) => s.me?.businessAccount.name ?? 'Your business');
  return (
    <WhatsAppPreview
      header={list.header ?? ''}
      body={list.body}
      footer={list.footer ?? ''}
      list={list}
      status="accepted"
      businessName={businessName}
      testId={testId}
    />
  );
}
