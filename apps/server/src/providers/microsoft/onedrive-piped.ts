import { byteSlices } from "../byte-slices.ts";
import { ProviderError } from "../provider-error.ts";
import type { DriveItem, OneDriveClient } from "./onedrive.client.ts";
import type { QuickXorHasher } from "./quickxor.ts";

const transient = (message: string, code: string) =>
  new ProviderError("microsoft", "transient", message, { code });

/**
 * Sends the media from byte `expected` on through the session `url`, each fragment's body the
 * source's next bytes as they arrive (as Drive's chunks are piped): nothing is held but the
 * piece in flight, whatever the fragment's size. Every byte read is hashed once into `hasher`
 * (the bytes the session holds already are read for the hash only). A cut fragment is not sent
 * again from here (its bytes are gone): the failure is thrown, and the caller asks where the
 * session stands and reads the media again; so is a session gone. Answers the item when the
 * last fragment returned it.
 */
export async function sendPiped(
  client: OneDriveClient,
  a: {
    url: string;
    source: AsyncIterable<Uint8Array>;
    size: number;
    expected: number;
    fragment: number;
    hasher: QuickXorHasher;
    beforeFragment?: () => void;
    signal?: AbortSignal;
  },
): Promise<DriveItem | null> {
  const { url, size, fragment, hasher } = a;
  let position = 0;
  const { take, next, close } = byteSlices(a.source, {
    onRead: (piece) => {
      position += piece.length;
      if (position > size) throw transient("The media is longer than announced", "length_changed");
      hasher.update(piece);
    },
    short: () => transient("The media is shorter than announced", "length_changed"),
  });
  try {
    for await (const _ of take(a.expected)) {
      // The session holds these bytes already: read for the hash only.
    }
    let offset = a.expected;
    let item: DriveItem | null = null;
    while (offset < size) {
      a.beforeFragment?.();
      const length = Math.min(fragment, size - offset);
      const result = await client.putRange(
        url,
        { stream: take(length), length },
        offset,
        size,
        a.signal,
      );
      // Gone (a finished one too): the caller asks again and finds the file by its path.
      if (result === "gone")
        throw transient("The OneDrive upload session is gone; starting again", "session_gone");
      if (result.done) {
        item = result.item;
        offset += length;
        break;
      }
      if (result.next !== offset + length)
        throw transient("OneDrive kept part of a fragment", "unexpected_range");
      offset = result.next;
    }
    if ((await next()) !== null)
      throw transient("The media is longer than announced", "length_changed");
    return item;
  } finally {
    await close();
  }
}
