import type { Template, TemplateStatus } from '../../../../shared/schemas/index.ts';
import { FilterToolbar } from '../../components/filter-toolbar.tsx';
import { formatDateTime } from '../../components/format.ts';
import { LoadMore } from '../../components/load-more.tsx';
import { RowMenu, type MenuSection } from '../../components/menu.tsx';
import { useRightGate } from '../../components/needs-right.tsx';
import { EmptyState, TableHead } from '../../components/table.tsx';
import { TemplateStatusBadge } from '../../components/template-status.tsx';
import { componentText } from '../../components/template-text.ts';
import { useNow } from '../../components/use-now.ts';
import { sendableFrom } from '../../components/template-wait.ts';
import { selectIsTestMode, useSession } from '../../stores/session.ts';
import { STATUS_LABELS, useTemplates, type StatusFilter } from '../../stores/templates.ts';

const FILTERS: StatusFilter[] = ['', 'PENDING', 'APPROVED', 'REJECTED', 'PAUSED', 'DISABLED'];

/** Statuses a template may be edited in (README "API": back to PENDING on save). */
export const EDITABLE: ReadonlySet<TemplateStatus> = new Set(['APPROVED', 'REJECTED', 'PAUSED']);

function UsableNote({ template }: { template: Template }) {
  const now = useNow(15_000);
  if (template.status !== 'APPROVED' || !template.usableAt) return null;
  const at = Date.parse(template.usableAt);
  if (Number.isNaN(at) || at <= now) return null;
  return (
    <div className="muted small" data-testid="template-usable-at">
      Sendable from {sendableFrom(new Date(at).toISOString(), now)}
    </div>
  );
}

interface TemplateListProps {
  onEdit: (template: Template) => void;
  onDelete: (template: Template) => void;
  onReview: (template: Template) => void;
  onCreate: () => void;
}

export function TemplateList({ onEdit, onDelete, onReview, onCreate }: TemplateListProps) {
  const templates = useTemplates((s) => s.templates);
  const status = useTemplates((s) => s.status);
  const filter = useTemplates((s) => s.statusFilter);
  const setFilter = useTemplates((s) => s.setStatusFilter);
  const nextCursor = useTemplates((s) => s.nextCursor);
  const loadingMore = useTemplates((s) => s.loadingMore);
  const loadMore = useTemplates((s) => s.loadMore);
  const testMode = useSession(selectIsTestMode);
  const { refusal, gate } = useRightGate('templates.write');

  const menu = (template: Template): MenuSection[] => [
    {
      heading: testMode ? (
        <>
          Simulate review <span className="badge badge-test">Test</span>
        </>
      ) : undefined,
      items: testMode
        ? [
            {
              label: 'Simulate review…',
              onSelect: () => onReview(template),
              testId: 'simulate-review',
            },
          ]
        : [],
    },
    {
      items: [
        {
          label: 'Delete…',
          danger: true,
          onSelect: () => onDelete(template),
          disabled: refusal !== null,
          ...(refusal ? { hint: refusal } : {}),
          testId: 'delete-template',
        },
      ],
    },
  ];

  return (
    <section className="card card-flush">
      <FilterToolbar
        label="Filter by status"
        options={FILTERS}
        value={filter}
        onChange={setFilter}
        labels={STATUS_LABELS}
        testId={(value) => `template-filter-${value || 'ALL'}`}
      >
        {status === 'loading'
          ? 'Loading…'
          : `${templates.length}${nextCursor ? '+' : ''} template${templates.length === 1 ? '' : 's'}`}
      </FilterToolbar>

      {templates.length === 0 ? (
        <EmptyState testId="templates-empty">
          {status === 'loading' || status === 'idle' ? (
            'Loading templates…'
          ) : filter ? (
            `No ${STATUS_LABELS[filter].toLowerCase()} templates.`
          ) : (
            <>
              <p>No templates yet. A template is needed to start a conversation.</p>
              <button type="button" className="button button-primary" {...gate} onClick={onCreate}>
                Create your first template
              </button>
            </>
          )}
        </EmptyState>
      ) : (
        <table className="table templates-table" data-testid="templates-table">
          <TableHead columns={['Name', 'Status', 'Category', 'Body', 'Updated']} actions />
          <tbody>
            {templates.map((template) => {
              const editable = EDITABLE.has(template.status);
              return (
                <tr
                  key={template.id}
                  data-testid="template-row"
                  data-template-id={template.id}
                  data-template-name={template.name}
                >
                  <td>
                    <div className="cell-strong mono" data-testid="template-name">
                      {template.name}
                    </div>
                    <div className="muted small">{template.language}</div>
                  </td>
                  <td className="template-status-cell">
                    <TemplateStatusBadge status={template.status} />
                    {template.status === 'REJECTED' && template.rejectionReason ? (
                      <div className="rejection-reason" data-testid="template-rejection">
                        {template.rejectionReason}
                      </div>
                    ) : null}
                    <UsableNote template={template} />
                  </td>
                  <td>
                    <span className="category">{template.category.toLowerCase()}</span>
                  </td>
                  <td className="template-body-cell">
                    <span className="template-body-preview" title={componentText(template, 'BODY')}>
                      {componentText(template, 'BODY')}
                    </span>
                  </td>
                  <td className="nowrap muted">{formatDateTime(template.updatedAt)}</td>
                  <td className="col-actions">
                    <div className="row-actions">
                      <button
                        type="button"
                        className="button button-small"
                        {...gate}
                        disabled={!editable || gate.disabled}
                        title={
                          gate.title ??
                          (editable
                            ? 'Edit and send for review again'
                            : template.status === 'PENDING'
                              ? 'In review: it can be edited once reviewed'
                              : 'Disabled templates cannot be edited')
                        }
                        onClick={() => onEdit(template)}
                        data-testid="edit-template"
                      >
                        Edit
                      </button>
                      <RowMenu
                        label={`More actions for ${template.name}`}
                        sections={menu(template)}
                        testId="template-menu"
                      />
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <LoadMore nextCursor={nextCursor} loadingMore={loadingMore} loadMore={loadMore} />
    </section>
  );
}
