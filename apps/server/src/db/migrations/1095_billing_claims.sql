-- One billing change of a user at a time (a Checkout, a Stripe event), without a database
-- transaction held while Stripe answers: the change claims the user's row here (a lease, so a
-- process that dies lets go), calls Stripe, then writes in a short transaction that checks it
-- still holds the claim. Times are the database's clock (clock_timestamp()).
CREATE TABLE billing_claims (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  token uuid NOT NULL,
  expires_at timestamptz NOT NULL
);
