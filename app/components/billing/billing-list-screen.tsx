import { Form, useLoaderData, useSearchParams } from "@remix-run/react";
import { DataList, type Column } from "~/components/ui/data-list";
import { DateRangeFilter, FilterButtons, FilterSelect } from "~/components/ui/list";
import { FormMessage } from "~/components/ui/field";
import { BILLING_LIST_STATUS_LABELS, BILLING_LIST_STATUSES } from "~/domain/client-reports";
import { TOO_MANY_STAFF_HINT } from "~/domain/employees";
import type { BillingList, BillingListRow } from "~/models/client-reports.server";

/**
 * The billing list (platform §2 billing/list): the clients with notes in the period, filtered by location,
 * provider and status, each linking to its billing by client. A plain GET form: works without JavaScript.
 */
export function BillingListScreen({ title, rowHref, hiddenFields = {} }: { title: string; rowHref: (row: BillingListRow, providerId: number | "") => string; hiddenFields?: Record<string, string> }) {
  const { list, queryError } = useLoaderData<{ list: BillingList; queryError: string | null }>() as unknown as { list: BillingList; queryError: string | null };
  const [params] = useSearchParams();
  const columns: Column<BillingListRow>[] = [
    {
      header: "Client",
      cell: (r) => (
        <a href={rowHref(r, list.filters.provider_id)} aria-label={`Billing of ${r.patient_name}`}>
          {r.patient_name}
        </a>
      ),
    },
    { header: "Client id", cell: (r) => r.patient_identifier },
    { header: "Location", cell: (r) => r.location },
    { header: "Notes", cell: (r) => r.notes },
    { header: "Pending", cell: (r) => r.pending },
    { header: "Not billed", cell: (r) => r.unbilled },
    { header: "Billed", cell: (r) => r.billed },
    { header: "Paid", cell: (r) => r.paid },
    { header: "Total units", cell: (r) => r.total_units },
    { header: "Total hours", cell: (r) => r.total_hours.toFixed(2) },
    { header: "Dates", cell: (r) => (r.first_date === r.last_date ? r.first_date : `${r.first_date} – ${r.last_date}`) },
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>{title}</h1>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <DataList
        page={list.page}
        columns={columns}
        rowKey={(r) => r.patient_id}
        caption="Clients with notes to bill"
        filters={
          <Form method="get" className="search-form" role="search" aria-label="Filter the billing list">
            {Object.entries(hiddenFields).map(([k, v]) => (
              <input key={k} type="hidden" name={k} value={v} />
            ))}
            <FilterSelect visible name="location_id" label="Location" any="All" value={String(list.filters.location_id)} options={list.locations.map((l) => ({ value: l.id, label: l.title }))} />
            <FilterSelect visible name="provider_id" label="Provider" any="All" value={String(list.filters.provider_id)} options={list.providers.map((u) => ({ value: u.id, label: u.name }))} hint={list.providers_more ? TOO_MANY_STAFF_HINT : undefined} />
            <DateRangeFilter from={list.period.from} to={list.period.to} />
            <FilterSelect visible name="status" label="Status" any="Any" value={list.filters.status} options={BILLING_LIST_STATUSES.map((s) => ({ value: s, label: BILLING_LIST_STATUS_LABELS[s] }))} />
            <FilterButtons />
          </Form>
        }
      />
    </section>
  );
}
