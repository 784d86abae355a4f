import { noticeTitle } from "~/domain/weekly-reports";

/**
 * A message of the weekly editors with its title as the spec words it ('Invalid Date Selection',
 * 'Comment added successfully' under 'Add Comment', …; any other failure under 'Error', clinical §8).
 */
export function Notice({ text, tone }: { text: string | null | undefined; tone: "success" | "danger" }) {
  if (!text) return null;
  return (
    <div className={`alert alert-${tone}`} role={tone === "danger" ? "alert" : "status"}>
      <strong>{noticeTitle(text)}</strong> {text}
    </div>
  );
}
