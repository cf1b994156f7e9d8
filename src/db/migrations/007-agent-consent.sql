-- The owner's standing agreement for an agent key: true means an assistant states the price and
-- asks before each purchase; false means it may spend within the key's limit without asking.
ALTER TABLE agent_keys ADD COLUMN ask_before_spending boolean NOT NULL DEFAULT true;
