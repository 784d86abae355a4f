import type { NoteContent, NoteContext, NoteJson, NoteType } from "~/domain/notes";

/** A 24×10 greyscale PNG (a wavy stroke on white): a drawn signature as the signature pad stores it. */
export const SIGNATURE_PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABgAAAAKCAAAAACLAsG0AAAALUlEQVR42mP4jwMwECXBAAJYJBiQRRgYMDTD5DH1MkAJBkwzoaLIdiKcQbI/ANzh1ymVlXoCAAAAAElFTkSuQmCC";

/** A stored note as readers see it, with every field filled in plausibly; `over` replaces any of it. */
export function fixtureNote(type: NoteType, cpt: string, over: Partial<NoteJson> = {}, content: NoteContent = {}): NoteJson {
  return {
    id: 4711,
    type,
    patient_id: 12,
    patient_name: "Mia Rivera",
    location_id: 3,
    provider_id: 21,
    provider_name: "Ruth Banks",
    supervisor_id: 22,
    supervisor_name: "Simone Clark",
    bip_id: 5,
    pa_service_id: 9,
    cpt_code: cpt,
    subtype: cpt === "97151" ? "observation" : null,
    diagnosis_code: "F84.0",
    pos: "12",
    is_telehealth: false,
    session_date: "2026-11-20",
    time_in: "09:00",
    time_out: "11:30",
    time_in2: "13:00",
    time_out2: "14:00",
    session_length_morning_total: 150,
    session_length_afternon_total: 60,
    session_length_total: 210,
    total_hours: 3.5,
    total_minutes: 210,
    total_units: 14,
    md: "HN",
    md2: null,
    md3: null,
    unit_price_cents: type === "combined" ? 1800 : null,
    unit_price: type === "combined" ? "18.00" : null,
    note_type: type,
    doctor_id: 21,
    status: "pending",
    billed: false,
    paid: false,
    provider_signature: null,
    provider_signed_on: "2026-11-20",
    supervisor_signature: null,
    supervisor_signed_on: null,
    signed_at: "2026-11-20T17:00:00.000Z",
    summary_note: "Met with client at home. Client engaged in structured play and requested items with words.",
    content: {
      participants: "Client and mother",
      environmental_changes: "New baby sister at home",
      ...content,
    },
    version: 1,
    created_at: "2026-11-20T17:00:00.000Z",
    updated_at: "2026-11-20T17:00:00.000Z",
    ...over,
  };
}

export const fixtureContext: NoteContext = {
  patient: { id: 12, first_name: "Mia", last_name: "Rivera", patient_identifier: "P-0012", birth_date: "2019-11-21", insurance_identifier: "BCX-99812", insurance_name: "Blue Cross" },
  location: { id: 3, title: "Sunrise ABA Center", address: "12 Main St", city: "Springfield", state: "IL", zip: "62701", phone1: "(217) 555-0142", time_zone: "America/Chicago" },
  pa_service: { id: 9, pa_service: "Direct therapy", cpt: "97153", n_units: 400, start_date: "2026-09-01", end_date: "2027-02-28" },
  provider: null,
  supervisor: null,
};

export const RBT_CONTENT: NoteContent = {
  maladaptives: [
    { plan_id: 1, name: "Elopement", frequency: 3 },
    { plan_id: 2, name: "Tantrum", frequency: 0 },
  ],
  replacements: [{ plan_id: 3, name: "Functional communication", total_trials: 12, correct_responses: 8 }],
  interventions: ["Token economy", "Differential reinforcement"],
  client_appeared: "Happy",
  as_evidenced_by: "Smiling and approaching the therapist",
  rbt_modeled_and_demonstrated_to_caregiver: "Prompting hierarchy for requests",
  client_response_to_treatment_this_session: "Responded well to reinforcement",
  next_session_is_scheduled_for: "2026-11-23",
};
