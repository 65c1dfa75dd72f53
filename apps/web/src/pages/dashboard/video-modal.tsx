import type { Post } from "@keepsake/contracts";
import { type KeyboardEvent, useEffect, useId, useRef } from "react";
import { createPortal } from "react-dom";
import { formatCount, formatDate } from "../../lib/format.ts";

const FOCUSABLE =
  'a[href], button:not([disabled]), video[controls], input, select, textarea, [tabindex]:not([tabindex="-1"])';

interface VideoModalProps {
  post: Post;
  onClose: () => void;
}

/**
 * SPEC §2: a modal player with date, likes and the caption clamped to 3 lines.
 * Focus moves in and stays in (Tab and Shift+Tab wrap); Escape or the backdrop closes it.
 */
export function VideoModal({ post, onClose }: VideoModalProps) {
  const dialog = useRef<HTMLDivElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const titleId = useId();

  useEffect(() => {
    closeButton.current?.focus();
    const previousOverflow = document.body.style.overflow;
    document.body.style.overflow = "hidden";
    return () => {
      document.body.style.overflow = previousOverflow;
    };
  }, []);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key === "Escape") {
      event.stopPropagation();
      onClose();
      return;
    }
    if (event.key !== "Tab" || !dialog.current) return;
    // Focus never leaves the dialog: Tab and Shift+Tab cycle through its controls.
    event.preventDefault();
    const items = Array.from(dialog.current.querySelectorAll<HTMLElement>(FOCUSABLE));
    if (items.length === 0) return;
    const index = items.indexOf(document.activeElement as HTMLElement);
    const step = event.shiftKey ? -1 : 1;
    const next = index === -1 ? 0 : (index + step + items.length) % items.length;
    items[next]?.focus();
  }

  return createPortal(
    // biome-ignore lint/a11y/noStaticElementInteractions: the backdrop closes on click; Escape is handled by the dialog
    <div
      className="backdrop video-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div
        ref={dialog}
        className="video-modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={onKeyDown}
      >
        <div className="video-modal-header">
          <h2 id={titleId} className="video-modal-title">
            {post.media_product_type === "story" ? "Story" : "Video"}
          </h2>
          <button
            ref={closeButton}
            type="button"
            className="btn btn-ghost btn-sm modal-close"
            onClick={onClose}
            aria-label="Close"
          >
            ✕
          </button>
        </div>
        {/* biome-ignore lint/a11y/useMediaCaption: Instagram videos carry no caption track */}
        <video
          className="video-modal-player"
          src={post.media_url ?? undefined}
          poster={post.thumbnail_url ?? undefined}
          controls
          tabIndex={0}
          autoPlay
          playsInline
        />
        <div className="video-modal-meta">
          <span>{formatDate(post.timestamp)}</span>
          <span>♥ {formatCount(post.like_count ?? 0)} likes</span>
        </div>
        {post.caption && <p className="video-modal-caption">{post.caption}</p>}
      </div>
    </div>,
    document.body,
  );
}
