-- The change feed's horizon from the data: each org has FEED_WRITER_SLOTS slot rows; a transaction that writes the
-- org's deals or earnings feeds locks one for its whole length, and readers wait for (or bound their pages by) the
-- slots they cannot lock. docs/architecture.md, "The change-feed horizon".
CREATE TABLE "feed_writer_slots" (
    "org_id" TEXT NOT NULL,
    "slot" INTEGER NOT NULL,
    "released_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "feed_writer_slots_pkey" PRIMARY KEY ("org_id","slot")
);

ALTER TABLE "feed_writer_slots" ADD CONSTRAINT "feed_writer_slots_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The slots come with the org, in the transaction that creates it, whichever path inserts the org: a slot created
-- later by a writer would be invisible to readers until that writer commits, which is what a slot must not be.
CREATE FUNCTION quotient_create_feed_writer_slots() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO feed_writer_slots (org_id, slot) SELECT NEW.id, s FROM generate_series(1, 32) AS s;
  RETURN NULL;
END
$$;

CREATE TRIGGER orgs_feed_writer_slots
  AFTER INSERT ON orgs
  FOR EACH ROW EXECUTE FUNCTION quotient_create_feed_writer_slots();

INSERT INTO feed_writer_slots (org_id, slot) SELECT o.id, s FROM orgs o CROSS JOIN generate_series(1, 32) AS s;
