import type { ReactNode } from "react";
import { Form, useLoaderData, useSearchParams } from "@remix-run/react";
import { DataList, FILTERS_REFUSED_TEXT, type Column } from "~/components/ui/data-list";
import { DateRangeFilter, FilterButtons, FilterSelect, unshownFilterError } from "~/components/ui/list";
import { FormMessage } from "~/components/ui/field";
import { BILLING_LIST_STATUS_LABELS, BILLING_LIST_STATUSES, reportLinkQuery } from "~/domain/client-reports";
import { TOO_MANY_STAFF_HINT } from "~/domain/employees";
import type { BillingList, BillingListRow } from "~/models/client-reports.server";
import type { FilterErrors } from "~/services/billing-screens.server";

/**
 * The billing list (platform §2 billing/list): the clients with notes in the period, filtered by location,
 * provider and status, each linking to its billing by client. A plain GET form: works without JavaScript.
 * Refused filters: each error beside its field, the typed values kept (read from the URL), and no client listed.
 */
const FIELDS = ["location_id", "provider_id", "date_from", "date_to", "status"];

/**
 * `rowHref`: a client's link, given the list's filters as its report reads them (`reportLinkQuery`: the period), to
 * append to the address.
 */
/** `links`: the related screens the page head offers (the route's guard decides who sees them). */
export function BillingListScreen({ title, rowHref, hiddenFields = {}, links }: { title: string; rowHref: (row: BillingListRow, reportQuery: string) => string; hiddenFields?: Record<string, string>; links?: ReactNode }) {
  type Data = { list: BillingList; filterErrors: FilterErrors; typedPeriod: { from: string; to: string } };
  const { list, filterErrors, typedPeriod } = useLoaderData<Data>() as unknown as Data;
  const [params] = useSearchParams();
  const errors = filterErrors ?? {};
  /** The value the list was read with; the typed one (the URL's) when the filters were refused (the period's: under any of its names). */
  const chosen = (value: string) => (filterErrors ? undefined : value);
  const reportQuery = reportLinkQuery(list.period);
  const columns: Column<BillingListRow>[] = [
    {
      header: "Client",
      cell: (r) => (
        <a href={rowHref(r, reportQuery)} aria-label={`Billing of ${r.patient_name}`}>
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
        {links ? <span>{links}</span> : null}
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={unshownFilterError(filterErrors, FIELDS)} />
      <DataList
        page={list.page}
        columns={columns}
        rowKey={(r) => r.patient_id}
        empty={filterErrors ? FILTERS_REFUSED_TEXT : undefined}
        caption="Clients with notes to bill"
        filters={
          <Form method="get" className="search-form" role="search" aria-label="Filter the billing list">
            {Object.entries(hiddenFields).map(([k, v]) => (
              <input key={k} type="hidden" name={k} value={v} />
            ))}
            <FilterSelect visible name="location_id" label="Location" any="All" value={chosen(String(list.filters.location_id))} options={list.locations.map((l) => ({ value: l.id, label: l.title }))} error={errors.location_id} />
            <FilterSelect visible name="provider_id" label="Provider" any="All" value={chosen(String(list.filters.provider_id))} options={list.providers.map((u) => ({ value: u.id, label: u.name }))} hint={list.providers_more ? TOO_MANY_STAFF_HINT : undefined} error={errors.provider_id} />
            <DateRangeFilter from={filterErrors ? typedPeriod.from : list.period.from} to={filterErrors ? typedPeriod.to : list.period.to} errors={errors} />
            <FilterSelect visible name="status" label="Status" any="Any" value={chosen(list.filters.status)} options={BILLING_LIST_STATUSES.map((s) => ({ value: s, label: BILLING_LIST_STATUS_LABELS[s] }))} error={errors.status} />
            <FilterButtons />
          </Form>
        }
      />
    </section>
  );
}
