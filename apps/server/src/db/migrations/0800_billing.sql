-- Plans and billing (issue 9).

-- One Stripe customer per user, created at the first checkout.
CREATE TABLE stripe_customers (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  customer_id text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The latest known state of each Stripe subscription, always read back from Stripe.
CREATE TABLE subscriptions (
  id text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  customer_id text NOT NULL,
  price_id text,
  tier text NOT NULL CHECK (tier IN ('free', 'premium', 'pro', 'agency')),
  status text NOT NULL,
  amount_cents integer NOT NULL DEFAULT 0,
  billing_interval text CHECK (billing_interval IN ('month', 'year')),
  current_period_start timestamptz,
  current_period_end timestamptz,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  stripe_created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_user_id_idx ON subscriptions (user_id);

-- Webhook events processed, so a repeated delivery changes nothing.
CREATE TABLE stripe_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now()
);

-- A downgrade keeps extra accounts but pauses their syncs until the user picks which to keep.
ALTER TABLE instagram_accounts ADD COLUMN paused_by_plan boolean NOT NULL DEFAULT false;
