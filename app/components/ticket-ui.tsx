import { Link } from "~/components/ui/link";
import { actionsColumn, type Column } from "~/components/ui/data-list";
import { SelectField, TextareaField } from "~/components/ui/form-controls";
import { Field } from "~/components/ui/field";
import type { StaffGone } from "~/domain/patients";
import { assigneeLabel, BODY_MAX, isUnreadFor, optionsOf, SUBJECT_MAX, TICKET_CATEGORIES, TICKET_PRIORITIES, openedDay, ticketDay, ticketLabel, type TicketRole } from "~/domain/tickets";

/** The pieces the ticket screens share: the ticket's fields, its status text and the list's columns. */

export interface TicketRowLike {
  id: number;
  subject: string;
  requester_name: string;
  location_title: string | null;
  assignee_name: string | null;
  /** The office list's: why the stored assignee could no longer be assigned (deleted, inactive), named beside them. */
  assignee_gone?: StaffGone | null;
  category: string;
  priority: string;
  status: string;
  read_by_staff: boolean;
  unread_responses: number;
  created_at: string;
  opened_on?: string | null;
  updated_at: string;
  time_zone: string | null;
  role: TicketRole;
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-ticket-${status}`}>{ticketLabel(status)}</span>;
}

/** The columns of a ticket list; `office` adds the requester and location, `mine` the unread responses. */
export function ticketColumns<T extends TicketRowLike>(opts: { view: "office" | "mine"; canEdit: (row: T) => boolean }): Column<T>[] {
  return [
    { header: "#", cell: (t) => t.id },
    {
      header: "Subject",
      cell: (t) => {
        const unread = isUnreadFor(opts.view === "office" ? "office" : "requester", t);
        return (
          <>
            <Link to={`/tickets/view/${t.id}`} className={unread ? "unread" : undefined}>
              {unread ? <strong>{t.subject}</strong> : t.subject}
            </Link>
            {unread ? (
              <span className="badge badge-unread" data-testid="unread">
                {opts.view === "office" ? " Unread" : ` ${t.unread_responses} new`}
              </span>
            ) : null}
          </>
        );
      },
    },
    { header: "Requester", cell: (t) => t.requester_name || "—", when: opts.view === "office" },
    { header: "Location", cell: (t) => t.location_title ?? "—", when: opts.view === "office" },
    { header: "Assigned to", cell: (t) => (t.assignee_name ? assigneeLabel(t.assignee_name, t.assignee_gone ?? null) : "—"), when: opts.view === "office" },
    { header: "Category", cell: (t) => ticketLabel(t.category) },
    { header: "Priority", cell: (t) => ticketLabel(t.priority) },
    { header: "Status", cell: (t) => <StatusBadge status={t.status} /> },
    { header: "Opened", cell: (t) => openedDay(t) },
    { header: "Last activity", cell: (t) => ticketDay(t.updated_at, t.time_zone) },
    actionsColumn((t) => [
      <Link key="view" to={`/tickets/view/${t.id}`} aria-label={`View ticket #${t.id}`}>
        View
      </Link>,
      opts.canEdit(t) ? (
        <Link key="edit" to={`/tickets/edit/${t.id}`} aria-label={`Edit ticket #${t.id}`}>
          Edit
        </Link>
      ) : null,
    ]),
  ];
}

/** Subject, message, category and priority, with their errors and the values typed. */
export function TicketFields({ values, errors }: { values: Record<string, unknown>; errors: Record<string, string | undefined> }) {
  const text = (k: string) => (typeof values[k] === "string" ? (values[k] as string) : "");
  return (
    <>
      <Field label="Subject" name="subject" required maxLength={SUBJECT_MAX} defaultValue={text("subject")} error={errors.subject} />
      <TextareaField label="Message" name="body" required maxLength={BODY_MAX} rows={6} defaultValue={text("body")} error={errors.body} />
      <SelectField label="Category" name="category" options={optionsOf(TICKET_CATEGORIES)} defaultValue={text("category") || "general"} error={errors.category} />
      <SelectField label="Priority" name="priority" options={optionsOf(TICKET_PRIORITIES)} defaultValue={text("priority") || "normal"} error={errors.priority} />
    </>
  );
}
