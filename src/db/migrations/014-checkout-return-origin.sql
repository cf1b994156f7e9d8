-- Where the owner started a console top-up (e.g. http://localhost:8080): the checkout's return
-- pages link back to the console there, on the host whose session cookie the owner holds, rather
-- than on PUBLIC_URL's host, where they would meet the sign-in page again.
ALTER TABLE checkouts ADD COLUMN return_origin TEXT;
