import { Field } from "~/components/ui/field";
import { SelectField } from "~/components/ui/form-controls";
import { PARENT_STATUSES } from "~/domain/parents";
import { GENDERS } from "~/domain/patients";

/**
 * The parent's fields (platform §3 Parent/guardian), shared by the add screen and the profile's edit form.
 * Works without JavaScript: each field shows its error and keeps the value typed. `signInFixed`: the user
 * may not change who signs in as the parent or where they belong (decision 015), so email, location and status
 * are shown but not offered for change (still posted, so the rest of the form saves). `locationRequired`: the user
 * may not save the parent without a location (parentNeedsLocation), so "None" is not offered: "Choose a location".
 */
export function ParentFields({
  values,
  errors,
  locations,
  signInFixed = false,
  locationRequired = false,
}: {
  values: Record<string, unknown>;
  errors: Record<string, string | undefined>;
  locations: readonly { id: number; title: string }[];
  signInFixed?: boolean;
  locationRequired?: boolean;
}) {
  const t = (k: string) => (values[k] === null || values[k] === undefined ? "" : String(values[k]));
  return (
    <>
      <Field label="Name" name="name" required defaultValue={t("name")} error={errors.name} />
      <Field label="Surname" name="surname" required defaultValue={t("surname")} error={errors.surname} />
      <Field label="Email" name="email" type="email" required readOnly={signInFixed} defaultValue={t("email")} error={errors.email} />
      <Field label="Phone" name="phone" type="tel" defaultValue={t("phone")} error={errors.phone} />
      <Field label="Work phone" name="work_phone" type="tel" defaultValue={t("work_phone")} error={errors.work_phone} />
      <Field label="Home phone" name="home_phone" type="tel" defaultValue={t("home_phone")} error={errors.home_phone} />
      <Field label="Birth date" name="birth_date" type="date" defaultValue={t("birth_date")} error={errors.birth_date} />
      <SelectField label="Gender" name="gender" placeholder="Not given" options={GENDERS} defaultValue={t("gender")} error={errors.gender} />
      <Field label="Address" name="address" defaultValue={t("address")} error={errors.address} />
      <Field label="City" name="city" defaultValue={t("city")} error={errors.city} />
      <Field label="State" name="state" defaultValue={t("state")} error={errors.state} />
      <Field label="ZIP code" name="zip_code" inputMode="numeric" defaultValue={t("zip_code")} error={errors.zip_code} />
      <SelectField
        label="Location"
        name="location_id"
        required={locationRequired}
        placeholder={signInFixed && t("location_id") ? undefined : locationRequired ? "Choose a location" : "None"}
        options={locations.filter((l) => !signInFixed || String(l.id) === t("location_id")).map((l) => ({ value: l.id, label: l.title }))}
        defaultValue={t("location_id")}
        error={errors.location_id}
      />
      <SelectField
        label="Status"
        name="status"
        options={PARENT_STATUSES.filter((s) => !signInFixed || s === (t("status") || "active")).map((s) => ({ value: s, label: s }))}
        defaultValue={t("status") || "active"}
        error={errors.status}
      />
    </>
  );
}
