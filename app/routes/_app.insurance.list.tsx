import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { FormMessage } from "~/components/ui/field";
import { Pagination, SearchForm } from "~/components/ui/list";
import { listInsurances } from "~/models/insurances.server";
import { modelContextFor, listQueryFrom } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Insurance · Baseline" }];
export const handle = { guard: "manage_insurances" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  const { query, queryError } = listQueryFrom(request);
  const page = await listInsurances(modelContextFor(context, actor), query);
  return { page, queryError };
}

export default function InsuranceList() {
  const { page, queryError } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  return (
    <section className="card">
      <div className="page-head">
        <h1>Insurance</h1>
        <span>
          <Link to="/insurance/rates">Rate records</Link>{" "}
          <Link className="btn btn-primary" to="/insurance/register">
            Register insurance
          </Link>
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <SearchForm placeholder="Search by name or payer ID" />
      {page.data.length === 0 ? (
        <p>No data to display.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Payer ID</th>
              <th>City</th>
              <th>State</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((i) => (
              <tr key={i.id}>
                <td>{i.name}</td>
                <td>{i.payer_id}</td>
                <td>{i.city}</td>
                <td>{i.state}</td>
                <td className="actions">
                  <Link to={`/insurance/view/${i.id}`} aria-label={`View ${i.name}`}>
                    View
                  </Link>
                  {" · "}
                  <Link to={`/insurance/list/edit/${i.id}`} aria-label={`Edit ${i.name}`}>
                    Edit
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pagination page={page} />
    </section>
  );
}
