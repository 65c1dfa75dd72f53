import { describeKillPoints } from "../support/kill-points.ts";

// A worker killed when Drive made the media file or the sidecar, not yet recorded.
describeKillPoints([0, 1]);
