import { Dialog } from '../../components/dialog.tsx';

export const SHORTCUTS: { keys: string[]; does: string }[] = [
  { keys: ['j'], does: 'Next conversation' },
  { keys: ['k'], does: 'Previous conversation' },
  { keys: ['r'], does: 'Reply (focus the composer)' },
  { keys: ['e'], does: 'Resolve the conversation' },
  { keys: ['a'], does: 'Assign to me' },
  { keys: ['x'], does: 'Select the open conversation (for bulk actions)' },
  { keys: ['/'], does: 'Search conversations' },
  { keys: ['Ctrl', 'F'], does: 'Search in this conversation (⌘F on a Mac)' },
  { keys: ['Ctrl', 'Shift', 'U'], does: 'Attach files to the reply (⌘⇧U on a Mac)' },
  {
    keys: ['Ctrl', 'Shift', 'Enter'],
    does: 'Send the reply, resolve and open the next (⌘⇧↵ on a Mac)',
  },
  { keys: ['Esc'], does: 'Leave a text box, or clear the selection' },
  { keys: ['?'], does: 'Show these shortcuts' },
];

export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Dialog
      title="Keyboard shortcuts"
      onClose={onClose}
      size="small"
      testId="shortcuts-dialog"
      footer={
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      }
    >
      <dl className="shortcut-list">
        {SHORTCUTS.map((s) => (
          <div key={s.does} className="shortcut-row">
            <dt>
              {s.keys.map((k) => (
                <kbd key={k} className="kbd">
                  {k}
                </kbd>
              ))}
            </dt>
            <dd>{s.does}</dd>
          </div>
        ))}
      </dl>
      <p className="muted small">Shortcuts are off while typing in a text box.</p>
    </Dialog>
  );
}
