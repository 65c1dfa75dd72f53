import { describeKillPoints } from "../support/kill-points.ts";

// A worker killed when the backup completed, its run not yet counting it or not yet completed.
describeKillPoints([3, 4]);
