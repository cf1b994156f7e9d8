-- The owner's threshold for a key (or connected app) that must ask (ask_before_spending): a
-- purchase priced at or below ask_above_cents goes ahead without an approval; above it, the
-- owner is asked as for every purchase. NULL (and 0 for a price above 0) asks for every one.
-- Only the owner sets it (the wallet key, the console, the consent page).
ALTER TABLE agent_keys
  ADD COLUMN ask_above_cents integer CHECK (ask_above_cents IS NULL OR ask_above_cents >= 0);
