-- Decision 030 (2026-11-28, stop 40): a claimed note's XP amount is taken from its claim line's price, at the
-- service's own multiplier as the line was priced (an XP line's multiplier is 0, so it cannot say). Lines built
-- before have none (null): their notes' XP amount is taken at the claim's unit price and today's service multiplier.
ALTER TABLE `claim_lines` ADD `xp_multiplier` real;