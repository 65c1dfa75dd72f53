import { isRetryable, ProviderError } from "../providers/provider-error.ts";

/**
 * graph.instagram.com refused an account's stories call for good: an unsupported operation
 * (#100, e.g. subcode 33, or #3) or a missing permission (#10, #200–299). Meta documents the
 * stories edge for Facebook Login tokens only (PROVIDERS.md): such a refusal means "stories need
 * Facebook Login", never a failed sync. A throttle, a 5xx or a network failure is transient and
 * is not this; neither is a dead token.
 */
export function isStoriesRefusal(err: unknown): boolean {
  if (!(err instanceof ProviderError)) return false;
  if (err.kind === "token_invalid" || isRetryable(err as unknown)) return false;
  if (err.kind === "permission") return true;
  return err.code === 100 || err.code === 3;
}
