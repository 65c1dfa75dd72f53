import { Prng } from "../prng.ts";
import type { IgComment, IgMedia, SandboxState } from "../state.ts";

const PEOPLE = [
  "ana.frames",
  "bo.makes",
  "cleo.travels",
  "dev.sketch",
  "eli.cooks",
  "fern.and.co",
  "gus.runs",
  "hana.prints",
  "ivo.studio",
  "june.reads",
];
const WORDS = [
  "Love this!",
  "So good 😍",
  "Where was this taken?",
  "The colours 🔥",
  "Need this in my life",
  "Beautiful work as always",
  "How long did this take?",
  "Saving this one",
  "Wow 👏",
  "This made my day",
];
const REPLIES = ["Thank you!", "Right?!", "Agreed 🙌", "Same here", "Link in bio ✨"];

const comments = (state: SandboxState) => {
  state.comments ??= {};
  return state.comments;
};

/** A comment id like Graph's: a long digit string of its own range. */
function nextCommentId(state: SandboxState): string {
  state.seq += 1;
  return (18_000_000_000_000_000n + BigInt(state.seq) * 11n).toString();
}

function newComment(
  state: SandboxState,
  media: IgMedia,
  p: { text: string; username: string; timestamp: number; parentId?: string; likeCount?: number },
): IgComment {
  const c: IgComment = {
    id: nextCommentId(state),
    mediaId: media.id,
    username: p.username,
    fromId: `1784150${String(PEOPLE.indexOf(p.username) + 1).padStart(10, "0")}`,
    text: p.text,
    timestamp: p.timestamp,
    likeCount: p.likeCount ?? 0,
    hidden: false,
    replies: [],
    ...(p.parentId ? { parentId: p.parentId } : {}),
  };
  comments(state)[c.id] = c;
  return c;
}

/**
 * The post's comments, made on first use from its `commentsCount` (deterministic per post):
 * top-level comments newest first, every fourth with a reply, `commentsCount` in all.
 */
export function mediaComments(state: SandboxState, media: IgMedia): string[] {
  if (media.commentIds) return media.commentIds;
  const rng = new Prng(`comments:${media.id}`);
  const made: IgComment[] = [];
  let left = media.commentsCount;
  for (let i = 0; left > 0; i++) {
    const at = media.timestamp + (i + 1) * 3_600_000;
    const top = newComment(state, media, {
      text: rng.pick(WORDS),
      username: rng.pick(PEOPLE),
      timestamp: at,
      likeCount: rng.int(0, 30),
    });
    made.push(top);
    left--;
    if (i % 4 === 0 && left > 0) {
      const reply = newComment(state, media, {
        text: rng.pick(REPLIES),
        username: rng.pick(PEOPLE),
        timestamp: at + 600_000,
        parentId: top.id,
      });
      top.replies.push(reply.id);
      left--;
    }
  }
  media.commentIds = made.reverse().map((c) => c.id);
  return media.commentIds;
}

export function commentById(state: SandboxState, id: string): IgComment | undefined {
  return state.comments?.[id];
}

/** Adds a comment (or a reply to `parentId`) now; the media's `comments_count` follows. */
export function addComment(
  state: SandboxState,
  media: IgMedia,
  p: { text: string; username?: string; parentId?: string; now: number },
): IgComment {
  const top = mediaComments(state, media);
  const parent = p.parentId ? commentById(state, p.parentId) : undefined;
  if (p.parentId && (!parent || parent.mediaId !== media.id || parent.parentId))
    throw new Error("no such top-level comment on this media");
  const c = newComment(state, media, {
    text: p.text,
    username: p.username ?? PEOPLE[0]!,
    timestamp: p.now,
    ...(parent ? { parentId: parent.id } : {}),
  });
  if (parent) parent.replies.push(c.id);
  else top.unshift(c.id);
  media.commentsCount += 1;
  return c;
}

/** Removes a comment (and its replies) as its author or the media's owner would. */
export function removeComment(state: SandboxState, media: IgMedia, id: string): number {
  const c = commentById(state, id);
  if (!c || c.mediaId !== media.id) throw new Error("no such comment on this media");
  const all = comments(state);
  const gone = [id, ...c.replies];
  if (c.parentId) {
    const parent = all[c.parentId];
    if (parent) parent.replies = parent.replies.filter((r) => r !== id);
  } else {
    media.commentIds = mediaComments(state, media).filter((x) => x !== id);
  }
  for (const g of gone) delete all[g];
  media.commentsCount = Math.max(0, media.commentsCount - gone.length);
  return gone.length;
}
