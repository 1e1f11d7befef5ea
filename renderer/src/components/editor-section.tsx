import type { ReactNode } from 'react';

/** One titled part of an editor's form (template editor, campaign wizard), with an optional aside. */
export function EditorSection({
  title,
  aside,
  children,
}: {
  title: string;
  aside?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="editor-section">
      <div className="editor-section-head">
        <h2>{title}</h2>
        {aside}
      </div>
      {children}
    </section>
  );
}

/** An editor's preview column, beside its form (`editor-grid`). */
export function EditorPreview({ caption, children }: { caption: string; children: ReactNode }) {
  return (
    <aside className="editor-preview" aria-label="Preview">
      <div className="editor-preview-head">
        <h2>Preview</h2>
        <span className="hint">{caption}</span>
      </div>
      {children}
    </aside>
  );
}
