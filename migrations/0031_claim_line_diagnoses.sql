-- A claim line keeps its own diagnoses (comma-separated: each of its notes' codes, else the client's principal code),
-- each among its claim's diagnosis_codes, so its SV107 points to them first (1-based indexes into the claim's HI)
-- rather than to the claim's diagnoses 1 to 4 whatever the line's note was written for. Written at the build and again
-- at generation, with the line's prices. Null on lines built before it: they pointed to 1 to 4, as their files say
-- (stop 31, decision 032).
ALTER TABLE `claim_lines` ADD `diagnosis_codes` text;
