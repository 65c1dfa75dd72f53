import type {
  CheckoutResponse,
  PlansResponse,
  PortalResponse,
  Subscription,
} from "@keepsake/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { plans as builtInPlans, type Plan } from "../lib/plans.ts";
import { hardRedirect } from "../lib/redirect.ts";
import { toast } from "../lib/toast.ts";
import { authKeys } from "./auth.ts";
import { api, errorDetail } from "./client.ts";
import { connectionKeys } from "./connections.ts";
import { syncKeys } from "./sync.ts";

export const billingKeys = {
  plans: ["billing", "plans"] as const,
  current: ["billing", "current"] as const,
};

export async function fetchPlans(): Promise<PlansResponse> {
  const { data } = await api.get<unknown>("/subscriptions/plans");
  return data as PlansResponse;
}

export async function fetchSubscription(): Promise<Subscription> {
  const { data } = await api.get<unknown>("/subscriptions/current");
  return data as Subscription;
}

/**
 * The plans with their Stripe price ids, and whether those are still on their way (`loading`:
 * an upgrade waits for them rather than failing). SPEC §7: when the call fails the built-in list
 * is used (prices and features, no price ids: upgrading then says checkout failed).
 */
export function usePlans(): { plans: Plan[]; loading: boolean } {
  const query = useQuery({ queryKey: billingKeys.plans, queryFn: fetchPlans, staleTime: 300_000 });
  return { plans: withPriceIds(query.data?.plans), loading: query.isPending };
}

function withPriceIds(server: PlansResponse["plans"] | undefined): Plan[] {
  if (!server) return builtInPlans;
  return builtInPlans.map((p) => {
    const s = server.find((x) => x.tier === p.tier);
    return s
      ? {
          ...p,
          monthly: s.monthly_price,
          annual: s.annual_price,
          features: s.features,
          priceIds: s.stripe_price_ids,
        }
      : p;
  });
}

export function useSubscription(enabled = true, refetchInterval: number | false = false) {
  return useQuery({
    queryKey: billingKeys.current,
    queryFn: fetchSubscription,
    enabled,
    refetchInterval,
  });
}

/** Where Checkout sends the browser back to. */
function returnUrls(tier: string) {
  const origin = window.location.origin;
  return {
    success_url: `${origin}/billing/return?tier=${encodeURIComponent(tier)}`,
    cancel_url: `${origin}/pricing?checkout=cancelled`,
  };
}

/**
 * Starts Stripe Checkout for a plan and goes there (a subscriber goes to the portal instead).
 * `failure` is the SPEC §8 toast of the screen that asked.
 */
export function useCheckout(failure: string) {
  return useMutation({
    mutationFn: async (input: {
      tier: string;
      priceId: string | null;
    }): Promise<CheckoutResponse> => {
      if (!input.priceId) throw new Error("This plan cannot be bought right now");
      const { data } = await api.post<unknown>("/subscriptions/checkout", {
        price_id: input.priceId,
        ...returnUrls(input.tier),
      });
      return data as CheckoutResponse;
    },
    onSuccess: (res) => {
      if (res.kind === "portal")
        toast.info("You already have a subscription: change plans in the billing portal.");
      hardRedirect(res.checkout_url);
    },
    onError: (error) => {
      toast.error(errorDetail(error, failure));
    },
  });
}

/** Manage Billing: the Stripe billing portal. */
export function usePortal() {
  return useMutation({
    mutationFn: async () => {
      const { data } = await api.post<unknown>("/subscriptions/portal");
      return data as PortalResponse;
    },
    onSuccess: (res) => hardRedirect(res.portal_url),
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to open subscription management"));
    },
  });
}

/** After a downgrade: keep syncing this account (another one beyond the limit pauses). */
export function useKeepAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (accountId: string) => {
      const { data } = await api.put<{ message: string }>(
        `/accounts/instagram-accounts/${encodeURIComponent(accountId)}/keep`,
      );
      return data;
    },
    onSuccess: (res) => {
      toast.success(res.message);
      void queryClient.invalidateQueries({ queryKey: connectionKeys.accounts });
    },
    onError: (error) => {
      toast.error(errorDetail(error, "Failed to keep the account"));
    },
  });
}

/** Once the webhook landed, everything that shows the plan is read again. */
export function useInvalidatePlan() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: billingKeys.current }),
      queryClient.invalidateQueries({ queryKey: authKeys.me }),
      queryClient.invalidateQueries({ queryKey: connectionKeys.accounts }),
      // The new plan's limits apply at once: the stats, the tiles' badges, the banner.
      queryClient.invalidateQueries({ queryKey: syncKeys.all }),
    ]);
}
