import type { User } from "@keepsake/contracts";

/** SPEC §2: the avatar shows the first letter of full_name, else of the e-mail, upper-cased. */
export function avatarInitial(user: Pick<User, "full_name" | "email">): string {
  const source = user.full_name?.trim() || user.email.trim();
  return source.charAt(0).toUpperCase() || "?";
}

export function displayName(user: Pick<User, "full_name" | "email">): string {
  return user.full_name?.trim() || user.email;
}
