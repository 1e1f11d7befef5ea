export function LabelChips({ labels, max = 3 }: { labels: string[]; max?: number }) {
  if (labels.length === 0) return <span className="muted">—</span>;
  const shown = labels.slice(0, max);
  const hidden = labels.length - shown.length;
  return (
    <span className="chips" title={labels.join(', ')}>
      {shown.map((label) => (
        <span key={label} className="chip" title={label}>
          {label}
        </span>
      ))}
      {hidden > 0 ? <span className="chip chip-more">+{hidden}</span> : null}
    </span>
  );
}
