-- Earnings rows are kept whole in the table, traces uncompressed, up to a page's size (8160 bytes).
-- With the default target (2032 bytes) every row with its trace (about 2.3 KB for a line of the example plan) was
-- compressed with pglz as it was written, and a deal event with a plan writes one or two of them: the statement
-- that retires and writes a line's rows cost 1.01-1.13 ms per call in the benchmark's profile, 0.74-0.75 without
-- the compression (database CPU per event 2.48-2.77 -> 2.14-2.20 ms). A row is written once and read rarely (its
-- trace by GET /v1/earnings/{id} and statements), and retiring it copies the row as stored either way. The cost is
-- space: a trace takes its full size on the page instead of about half. Rows longer than a page are still
-- compressed, and moved out of line if they must be, as before.
ALTER TABLE "earnings" SET (toast_tuple_target = 8160);
