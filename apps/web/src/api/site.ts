import { CONTACT_DEFAULTS, type ContactDetails } from "@keepsake/contracts";
import { useQuery } from "@tanstack/react-query";
import { api } from "./client.ts";

/** The configured contact details (GET /api/site); the defaults until they arrive. */
export function useContactDetails(): ContactDetails {
  const query = useQuery({
    queryKey: ["site"],
    // Typed by the contract, not parsed: zod stays out of the app shell (issue 27).
    queryFn: async () => (await api.get<ContactDetails>("/site")).data,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  return query.data ?? CONTACT_DEFAULTS;
}
