import { useId, type ReactNode } from "react";

/**
 * A table in a scroll box the keyboard can focus to scroll a wide table. A focusable box needs a name (WCAG 4.1.2,
 * probe 8923 L9): the box is a region named by the table's caption, which says what the table is. The caption is for
 * screen readers only (the heading above already tells a sighted reader) unless `showCaption`.
 */
export function ScrollTable({ caption, showCaption = false, children }: { caption: string; showCaption?: boolean; children: ReactNode }) {
  const captionId = useId();
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-labelledby={captionId}>
      <table>
        <caption id={captionId} className={showCaption ? undefined : "visually-hidden"}>
          {caption}
        </caption>
        {children}
      </table>
    </div>
  );
}
