import { pacingFlag, type Pacing } from "~/domain/pa-pacing";

/**
 * A PA service's pacing as text (decision 031): the flag first in words ("Will run out", "Under-using",
 * "Used up", "Overspent"), then the forecast sentence; colour only repeats what the words say.
 */
export function PacingText({ pacing }: { pacing: Pacing }) {
  const flag = pacingFlag(pacing);
  return (
    <span className="pacing" data-pacing={pacing.will_run_out ? "will-run-out" : pacing.under_using ? "under-using" : pacing.phase}>
      {flag ? <strong className={pacing.will_run_out || pacing.exhausted ? "pacing-flag danger" : "pacing-flag warning"}>{flag}. </strong> : null}
      {pacing.summary}
    </span>
  );
}
