import { describeKillPoints } from "../support/kill-points.ts";

// An account backed up to Dropbox (no tags to search by): a worker killed when Dropbox made the
// media file or the sidecar, not yet recorded. The later points are the engine's own, the same
// for every destination (backup.kill-points.backup/run).
describeKillPoints([0, 1], "dropbox");
