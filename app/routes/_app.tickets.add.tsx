import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { TicketFields } from "~/components/ticket-ui";
import { FormMessage } from "~/components/ui/field";
import { FormActions, SelectField } from "~/components/ui/form-controls";
import { createTicket, requesterLocations } from "~/models/tickets.server";
import { randomToken } from "~/services/crypto.server";
import { formResult, formValues, modelContextFor } from "~/services/forms.server";
import { requireStaff } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "New ticket · Baseline" }];
/** Any signed-in staff user asks the office for help (platform §2 tickets). */
export const handle = { guard: "staff" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requireStaff(request, context);
  // Each load of the form carries a one-time token: a resend of it (a double tap) opens one ticket (decision 036).
  // A requester with two or more locations picks the ticket's (their primary first); with one there is no choice.
  return { formToken: randomToken(18), locations: await requesterLocations(modelContextFor(context, actor)), primary: actor.locationId };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requireStaff(request, context);
  const values = formValues(await request.formData());
  const formToken = typeof values.form_token === "string" ? values.form_token : null;
  return formResult(await createTicket(modelContextFor(context, actor), values, { formToken }), values, (t) => `/tickets/view/${t.id}`);
}

export default function AddTicket() {
  const { formToken: fresh, locations, primary } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  // A refused form keeps its token, so fixing and sending it again is still one ticket.
  const typedToken = answer?.values.form_token;
  const formToken = typeof typedToken === "string" && typedToken ? typedToken : fresh;
  const busy = useNavigation().state === "submitting";
  return (
    <section className="card">
      <div className="page-head">
        <h1>New ticket</h1>
        <Link to="/tickets/my-tickets">My tickets</Link>
      </div>
      <p>Ask the office for help. Please do not include more client details than the office needs.</p>
      <FormMessage error={answer?.message} />
      <Form method="post">
        <input type="hidden" name="form_token" value={formToken} />
        <TicketFields values={answer?.values ?? {}} errors={answer?.errors ?? {}} />
        {locations.length > 1 ? (
          <SelectField
            label="Location"
            name="location_id"
            required
            options={locations.map((l) => ({ value: l.id, label: l.title }))}
            defaultValue={typeof answer?.values.location_id === "string" ? answer.values.location_id : String(primary ?? locations[0]!.id)}
            error={answer?.errors?.location_id}
          />
        ) : null}
        <FormActions>
          <button className="btn btn-primary" type="submit" disabled={busy}>
            Send ticket
          </button>
          <Link className="btn" to="/tickets/my-tickets">
            Cancel
          </Link>
        </FormActions>
      </Form>
    </section>
  );
}
