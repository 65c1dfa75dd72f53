import { CONTACT_DEFAULTS, type ContactDetails, contactDetails } from "@keepsake/contracts";
import { useQuery } from "@tanstack/react-query";
import { api } from "./client.ts";

/** The configured contact details (GET /api/site); the defaults until they arrive. */
export function useContactDetails(): ContactDetails {
  const query = useQuery({
    queryKey: ["site"],
    queryFn: async () => contactDetails.parse((await api.get<unknown>("/site")).data),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  return query.data ?? CONTACT_DEFAULTS;
}
