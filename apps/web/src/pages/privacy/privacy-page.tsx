import { useContactDetails } from "../../api/site.ts";
import { StaticPage } from "../../components/static-page.tsx";
import { Link } from "../../lib/navigation.tsx";

export function PrivacyPage() {
  const contact = useContactDetails();
  return (
    <StaticPage eyebrow="Legal" title="Privacy Policy" updated="November 23, 2026">
      <div className="prose">
        <p>
          Keepsake copies your Instagram posts, reels, carousels and stories into your own Google
          Drive. This policy lists exactly what we store to do that, why, and how to delete it.
        </p>
        <h2>What we store</h2>
        <ul>
          <li>
            <strong>Your account:</strong> your name, e-mail address and an argon2id hash of your
            password (never the password itself), your plan and whether you are an administrator.
          </li>
          <li>
            <strong>Sign-in sessions:</strong> when each session started and ends, and the browser
            (user agent) and network address it came from. Failed sign-ins are recorded by e-mail
            address and network address for 15 minutes to slow down password guessing.
          </li>
          <li>
            <strong>Connections:</strong> the access tokens of the Instagram accounts and the Google
            account you connect, encrypted with AES-256-GCM; the Instagram username, display name,
            profile picture link and follower, following and post counts; the Google account&apos;s
            e-mail address and the permissions it granted.
          </li>
          <li>
            <strong>Post metadata:</strong> for each post, its Instagram id, type, caption, time,
            like and comment counts, permalink and the temporary links Instagram gives to the media.
          </li>
          <li>
            <strong>Backup records:</strong> for each backup, its status, size, checksum, the ids of
            the files and folders Keepsake created in your Drive, and the history of sync runs.
          </li>
          <li>
            <strong>Billing:</strong> if you subscribe, Stripe processes the payment; we keep the
            Stripe customer and subscription ids, your plan and billing period — never card details.
          </li>
          <li>
            <strong>Messages and subscriptions:</strong> what you send through the{" "}
            <Link to="/contact">contact form</Link> (with your network address, to limit abuse) and
            the e-mail address you give to the status-updates list.
          </li>
        </ul>
        <h2>What we do not store</h2>
        <p>
          Your photos and videos. A backup streams each media file from Instagram straight into a
          Google Drive upload; it passes through our memory in small pieces and is never written to
          our disks.
        </p>
        <h2>The Google Drive permission</h2>
        <p>
          Keepsake asks Google only for the <code>drive.file</code> permission: it can see and
          change the files it created itself (your <code>Keepsake/</code> folder) and nothing else
          in your Drive.
        </p>
        <h2>How we use it</h2>
        <p>
          Only to run the backups you start or schedule, to show you their progress, to bill paid
          plans and to answer your messages. We do not sell or share your information for
          advertising, and Keepsake runs no analytics or advertising trackers.
        </p>
        <h2>Deleting your data</h2>
        <ul>
          <li>
            Disconnecting an Instagram account or Google Drive in Settings deletes its tokens; for
            Google we also revoke the grant at Google.
          </li>
          <li>
            <strong>Settings → Profile → Delete my account</strong> deletes your account and every
            record listed above at once: sessions, connections, posts, backup and sync records,
            messages and subscriptions. Your Google grant is revoked. The files in your Google Drive
            are yours and stay there.
          </li>
        </ul>
        <h2>Contact</h2>
        <p>
          Questions about privacy? Write to{" "}
          <a href={`mailto:${contact.support_email}`}>{contact.support_email}</a>.
        </p>
      </div>
    </StaticPage>
  );
}
