-- Why Keepsake itself cancelled a subscription: a customer holds at most one live
-- subscription, so when a webhook reveals a second one (two Checkouts paid in two tabs) the
-- older is cancelled at Stripe (its unused time credited) and this says which one replaced it.
ALTER TABLE subscriptions ADD COLUMN cancel_reason text;
