-- The console acts as the wallet key that signed in (it runs the same operations as REST, with
-- the same rate buckets and idempotency records): a session keeps that key sealed under a key
-- derived from the browser's session cookie, which is never stored. Without the cookie the
-- column cannot be read; a session from before this column has none and signs in again.
ALTER TABLE web_sessions ADD COLUMN key_sealed TEXT;
