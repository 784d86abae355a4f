import { pacingFlag, type Pacing } from "~/domain/pa-pacing";

/**
 * A PA service's pacing as text (decision 031): the flag first in words ("Will run out", "Under-using",
 * "Used up", "Overspent"), then the forecast sentence — once: a sentence that begins with the flag has it made strong in
 * place; colour only repeats what the words say.
 */
export function PacingText({ pacing }: { pacing: Pacing }) {
  const flag = pacingFlag(pacing);
  // A sentence that starts with its flag ("Under-using: …", "Will run out on …") has the flag made strong in place,
  // never said twice; the others are told it first ("Overspent. Ended on …").
  const said = flag !== null && pacing.summary.startsWith(flag);
  const strong = flag ? <strong className={pacing.will_run_out || pacing.exhausted ? "pacing-flag danger" : "pacing-flag warning"}>{said ? flag : `${flag}. `}</strong> : null;
  return (
    <span className="pacing" data-pacing={pacing.will_run_out ? "will-run-out" : pacing.under_using ? "under-using" : pacing.phase}>
      {strong}
      {said ? pacing.summary.slice(flag.length) : pacing.summary}
    </span>
  );
}
