import PQueue from "p-queue";
import type { DestinationSession } from "../destinations/index.ts";

type Folder = ReturnType<DestinationSession["ensureFolder"]>;

/**
 * What the posts a worker process backs up at once share: its transfer lanes (each media file's
 * download and upload hold one, `transferLanes` at a time, first come first served) and their
 * folders (posts that share one, a year's, find or make it once between them).
 */
export function postsInProgress(transferLanes: number) {
  const lanes = new PQueue({ concurrency: Math.max(1, transferLanes) });
  const folders = new Map<string, Folder>();
  return {
    inLane: <T>(transfer: () => Promise<T>): Promise<T> => lanes.add(transfer),

    /** `destination.ensureFolder`, joined by the others asking for the same folder meanwhile. */
    ensureFolder(
      destination: Pick<DestinationSession, "ensureFolder">,
      /** Whose folder: the destination, the user and the destination's account. */
      owner: string[],
      accountKey: string,
      path: string[],
    ): Folder {
      const key = JSON.stringify([...owner, accountKey, path]);
      let flight = folders.get(key);
      if (!flight) {
        flight = destination.ensureFolder(accountKey, path);
        folders.set(key, flight);
        const done = () => folders.delete(key);
        flight.then(done, done);
      }
      return flight;
    },
  };
}
