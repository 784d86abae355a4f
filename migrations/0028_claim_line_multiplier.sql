-- A claim line keeps the multiplier of its price (priceNote's: the modifiers' times the service's; XP → 0), so a
-- biller can read units × unit price × multiplier = charge on the claim viewer. Written at the build and again at
-- generation (a draft is priced again then). Null on lines built before it (stop 28, decisions 030 and 032).
ALTER TABLE `claim_lines` ADD `multiplier` real;
