/**
 * `n` requests started at once (a parallel burst over the app's loopback inject), and how many
 * of their answers had each status.
 */
export async function burst<T extends { status: number }>(
  n: number,
  request: (i: number) => Promise<T>,
): Promise<{ answers: T[]; statuses: Record<number, number> }> {
  const answers = await Promise.all(Array.from({ length: n }, (_, i) => request(i)));
  const statuses: Record<number, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  return { answers, statuses };
}
