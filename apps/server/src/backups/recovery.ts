/**
 * Whether files of this post may already be in the destination without a record of them, so the
 * backup must look (`findPostFiles`) before uploading: a retry (an earlier attempt may have
 * created a file and died before recording it), a post whose earlier backup record was lost, or
 * a folder an earlier connection filled (found there, or older than this connection of the
 * account) for posts from before then. A first backup of a post never looks.
 */
export function mayAlreadyBeInDrive(a: {
  attempts: number;
  backupStartedBefore: Date | null;
  postedAt: Date;
  accountConnectedAt: Date;
  folder: { recordedAt: Date; adopted: boolean };
}): boolean {
  if (a.attempts > 1 || a.backupStartedBefore !== null) return true;
  if (a.folder.adopted) return a.postedAt < a.folder.recordedAt;
  return a.folder.recordedAt < a.accountConnectedAt && a.postedAt < a.accountConnectedAt;
}
